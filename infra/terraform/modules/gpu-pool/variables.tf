variable "pool" {
  description = "Keel training pool: the workers poll keel-train-<pool>; tags keel:pool."
  type        = string
  default     = "gpu"
}

variable "instance_types" {
  description = "GPU instance types in order of preference (the rest are fallbacks), all with the same number of GPUs: that number is --slots."
  type        = list(string)
  default     = ["g5.xlarge", "g6.xlarge", "g4dn.xlarge"]

  validation {
    condition     = length(var.instance_types) > 0 && alltrue([for t in var.instance_types : contains(keys(local.gpus), t)])
    error_message = "Unknown GPU instance type in [${join(", ", var.instance_types)}]: ${join(", ", [for t in var.instance_types : t if !contains(keys(local.gpus), t)])}. Known: the g4dn, g5, g6, g6e, p3, p3dn, p4d, p4de, p5, p5e and p5en sizes (${join(", ", sort(keys(local.gpus)))})."
  }
  validation {
    condition     = length(distinct([for t in var.instance_types : lookup(local.gpus, t, 0)])) <= 1
    error_message = "All instance types of a pool need the same number of GPUs (it is the worker's --slots): ${join(", ", [for t in var.instance_types : "${t} has ${lookup(local.gpus, t, "?")}"])}."
  }
}

variable "largest_gang_slots" {
  description = "Slots of the largest gang (slots_per_trial) the pool must hold at once: max_instances x GPUs per instance must reach it."
  type        = number
  default     = 1

  validation {
    condition     = var.largest_gang_slots >= 1 && floor(var.largest_gang_slots) == var.largest_gang_slots
    error_message = "largest_gang_slots must be a whole number >= 1."
  }
  # an unknown instance type is reported by instance_types' own validation, not again here
  validation {
    condition     = try(var.largest_gang_slots <= var.max_instances * local.gpus[var.instance_types[0]], true)
    error_message = "max_instances = ${var.max_instances} instances of ${try(local.gpus[var.instance_types[0]], "?")} GPU(s) hold ${try(var.max_instances * local.gpus[var.instance_types[0]], "?")} slots, fewer than the largest gang's ${var.largest_gang_slots}: that gang could never start. Raise max_instances to at least ${try(ceil(var.largest_gang_slots / local.gpus[var.instance_types[0]]), "?")} or use instance types with more GPUs."
  }
}

variable "root_volume_size_gb" {
  description = "Root volume size (the Deep Learning AMI alone takes about 75 GB)."
  type        = number
  default     = 200
}

# --- passed to worker-pool unchanged; documented there ---

variable "name_prefix" {
  description = "See worker-pool."
  type        = string
  default     = "keel-"
}

variable "cluster" {
  description = "Temporal, storage root, jar and subnets; see worker-pool."
  type        = any
}

variable "instance_profile_name" {
  description = "See worker-pool."
  type        = string
}

variable "ami_id" {
  description = "See worker-pool; null looks up the newest Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 22.04)."
  type        = string
  default     = null
}

variable "min_instances" {
  description = "See worker-pool."
  type        = number
  default     = 0
}

variable "max_instances" {
  description = "See worker-pool."
  type        = number
}

variable "desired_capacity" {
  description = "See worker-pool."
  type        = number
  default     = null
}

variable "terraform_owns_desired_capacity" {
  description = "See worker-pool."
  type        = bool
  default     = false
}

variable "purchase" {
  description = "On-demand/spot split; see worker-pool."
  type        = any
  default     = {}
}

variable "tags" {
  description = "See worker-pool."
  type        = map(string)
  default     = {}
}
