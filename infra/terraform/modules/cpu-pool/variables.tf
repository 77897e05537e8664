variable "pool" {
  description = "Pool name (tags keel:pool and names the AWS resources)."
  type        = string
  default     = "cpu"
}

variable "roles" {
  description = "Roles of these workers: any of CONTROL, ETL and INFER (training runs on gpu-pool)."
  type        = list(string)
  default     = ["CONTROL", "ETL", "INFER"]

  validation {
    condition     = length(var.roles) > 0 && alltrue([for r in var.roles : contains(["CONTROL", "ETL", "INFER"], r)])
    error_message = "roles must be a non-empty list of CONTROL, ETL and INFER; TRAIN workers belong in a gpu-pool."
  }
}

variable "instance_types" {
  description = "CPU instance types in order of preference (the rest are fallbacks)."
  type        = list(string)
  default     = ["m6i.xlarge", "m6a.xlarge", "m5.xlarge"]

  validation {
    condition     = alltrue([for t in var.instance_types : can(regex("^(m|c|r)[5-8][a-z]*\\.[0-9]*(large|xlarge|metal)$", t))])
    error_message = "Unknown CPU instance type in [${join(", ", var.instance_types)}]: use the general purpose, compute or memory families of generation 5 to 8 (m, c, r, e.g. m6i.xlarge, c7i.2xlarge); GPU types belong in a gpu-pool."
  }
}

variable "root_volume_size_gb" {
  description = "Root volume size."
  type        = number
  default     = 50
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
  description = "See worker-pool; null looks up the newest Ubuntu 22.04 server AMI (Canonical)."
  type        = string
  default     = null
}

variable "min_instances" {
  description = "See worker-pool."
  type        = number
  default     = 1
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

variable "tags" {
  description = "See worker-pool."
  type        = map(string)
  default     = {}
}
