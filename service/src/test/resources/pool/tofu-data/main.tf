# A pool without a cloud: the desired count and the pool's name land in terraform_data, so a test can read
# what `tofu apply -var desired_capacity=N -var pool=...` applied with `tofu output`. boot_seconds makes
# every apply wait (a replacement runs the local-exec again), for the timeout test.
variable "desired_capacity" {
  type = number
  validation {
    condition     = var.desired_capacity >= 0 && var.desired_capacity <= 3
    error_message = "desired_capacity must be between 0 and 3 (the group's max_size)."
  }
}

variable "pool" {
  type = string
}

variable "boot_seconds" {
  type    = number
  default = 0
}

resource "terraform_data" "pool" {
  input            = { desired_capacity = var.desired_capacity, pool = var.pool }
  triggers_replace = [var.desired_capacity]

  provisioner "local-exec" {
    command = "sleep ${var.boot_seconds}"
  }
}

output "desired_capacity" {
  value = terraform_data.pool.output.desired_capacity
}

output "pool" {
  value = terraform_data.pool.output.pool
}
