variable "pool" {
  description = "Keel pool name: tags the group (keel:pool) and, for TRAIN workers, the task queue keel-train-<pool>."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9-]{0,22}$", var.pool))
    error_message = "pool must be 1-23 characters of a-z, 0-9 and '-', starting with a letter (it names keel-train-<pool> and AWS resources)."
  }
}

variable "name_prefix" {
  description = "Prefix of the AWS names (auto scaling group, launch template, security group): <name_prefix><pool>."
  type        = string
  default     = "keel-"

  validation {
    condition     = can(regex("^[a-zA-Z0-9-]{0,32}$", var.name_prefix))
    error_message = "name_prefix must be at most 32 characters of letters, digits and '-'."
  }
}

variable "roles" {
  description = "Keel worker roles the instances serve (keel worker --roles)."
  type        = list(string)

  validation {
    condition     = length(var.roles) > 0 && alltrue([for r in var.roles : contains(["CONTROL", "ETL", "TRAIN", "INFER"], r)])
    error_message = "roles must be a non-empty list of CONTROL, ETL, TRAIN and INFER."
  }
}

variable "slots_per_instance" {
  description = "Training slots per instance (keel worker --slots); required when roles include TRAIN, ignored otherwise."
  type        = number
  default     = null

  validation {
    condition     = var.slots_per_instance == null ? !contains(var.roles, "TRAIN") : var.slots_per_instance >= 1 && floor(var.slots_per_instance) == var.slots_per_instance
    error_message = "slots_per_instance must be a whole number >= 1 when roles include TRAIN."
  }
}

variable "instance_types" {
  description = "Instance types in order of preference: the first is launched when it can be, the others are fallbacks (mixed instances policy overrides)."
  type        = list(string)

  validation {
    condition     = length(var.instance_types) > 0 && length(distinct(var.instance_types)) == length(var.instance_types)
    error_message = "instance_types must list at least one instance type, each once."
  }
  validation {
    condition     = alltrue([for t in var.instance_types : can(regex("^[a-z][a-z0-9-]*\\.[0-9a-z]+$", t))])
    error_message = "Each instance type must look like family.size, e.g. g5.xlarge."
  }
}

variable "cluster" {
  description = <<-EOT
    Where the workers connect, shared by every pool of a deployment:
    temporal_address (host:port of an existing Temporal frontend, or <namespace>.<account>.tmprl.cloud:7233),
    temporal_namespace, temporal_tls, temporal_api_key_ssm_parameter (name of a SecureString parameter holding a
    Temporal Cloud API key; needs temporal_tls), temporal_cidr_blocks (networks the frontend is in, for the
    security group and the reachability check; default: anywhere, or the VPC for a private address),
    storage_root (s3://bucket/prefix), keel_jar_url (s3:// or https:// URL of keel-service.jar) and
    subnet_ids (where the instances run; all in one VPC).
  EOT
  type = object({
    temporal_address               = string
    temporal_namespace             = optional(string, "default")
    temporal_tls                   = optional(bool, false)
    temporal_api_key_ssm_parameter = optional(string)
    temporal_cidr_blocks           = optional(list(string), [])
    storage_root                   = string
    keel_jar_url                   = string
    subnet_ids                     = list(string)
  })

  validation {
    condition     = can(regex("^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?:[0-9]{1,5}$", var.cluster.temporal_address)) && try(tonumber(split(":", var.cluster.temporal_address)[1]) <= 65535, false)
    error_message = "cluster.temporal_address must be host:port (a DNS name or IPv4 address and a port up to 65535), e.g. temporal.internal:7233 or ns.acct.tmprl.cloud:7233."
  }
  validation {
    condition     = !can(regex("^(localhost|127\\.[0-9.]+|0\\.0\\.0\\.0|169\\.254\\.[0-9.]+):", var.cluster.temporal_address))
    error_message = "cluster.temporal_address names a loopback or link-local address: no instance can reach a Temporal frontend there. Give the frontend's address in the VPC (or Temporal Cloud's)."
  }
  validation {
    condition     = can(regex("^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$", var.cluster.temporal_namespace))
    error_message = "cluster.temporal_namespace must be a Temporal namespace name (letters, digits, '.', '_', '-')."
  }
  validation {
    condition     = var.cluster.temporal_api_key_ssm_parameter == null || var.cluster.temporal_tls
    error_message = "cluster.temporal_api_key_ssm_parameter needs cluster.temporal_tls = true: an API key is only sent over TLS."
  }
  validation {
    condition     = alltrue([for c in var.cluster.temporal_cidr_blocks : can(cidrhost(c, 0))])
    error_message = "cluster.temporal_cidr_blocks must be IPv4 CIDR blocks, e.g. 10.1.0.0/16."
  }
  validation {
    condition     = can(regex("^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/[^/]+)*/?$", var.cluster.storage_root))
    error_message = "cluster.storage_root must be s3://bucket or s3://bucket/prefix (the storage module's storage_root output)."
  }
  validation {
    condition     = can(regex("^(s3|https)://[^/]+/.+\\.jar$", var.cluster.keel_jar_url))
    error_message = "cluster.keel_jar_url must be an s3:// or https:// URL of keel-service.jar."
  }
  validation {
    condition     = length(var.cluster.subnet_ids) > 0 && alltrue([for s in var.cluster.subnet_ids : can(regex("^subnet-[0-9a-f]+$", s))])
    error_message = "cluster.subnet_ids must list at least one subnet id (subnet-...)."
  }
}

variable "instance_profile_name" {
  description = "IAM instance profile of the instances (the iam module's instance_profile_name)."
  type        = string
}

variable "ami_id" {
  description = "AMI of the instances. Null: the newest AMI matching ami_name_filter owned by ami_owners."
  type        = string
  default     = null

  validation {
    condition     = var.ami_id == null || can(regex("^ami-[0-9a-f]+$", var.ami_id))
    error_message = "ami_id must be null or an AMI id (ami-...)."
  }
}

variable "ami_name_filter" {
  description = "Name pattern of the AMI looked up when ami_id is null."
  type        = string
  default     = "ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-amd64-server-*"
}

variable "ami_owners" {
  description = "Owners of the AMI looked up when ami_id is null (099720108477: Canonical; amazon: AWS Deep Learning AMIs)."
  type        = list(string)
  default     = ["099720108477"]
}

variable "root_device_name" {
  description = "Root device of the AMI given as ami_id (/dev/sda1 on Ubuntu and the Ubuntu Deep Learning AMIs); a looked-up AMI says its own."
  type        = string
  default     = "/dev/sda1"
}

variable "root_volume_size_gb" {
  description = "Size of the encrypted gp3 root volume (the JVM, the jar, local caches)."
  type        = number
  default     = 100

  validation {
    condition     = var.root_volume_size_gb >= 20 && var.root_volume_size_gb <= 16384
    error_message = "root_volume_size_gb must be between 20 and 16384."
  }
}

variable "min_instances" {
  description = "Smallest size of the group (Determined's min_instances)."
  type        = number
  default     = 0

  validation {
    condition     = var.min_instances >= 0 && floor(var.min_instances) == var.min_instances
    error_message = "min_instances must be a whole number >= 0."
  }
}

variable "max_instances" {
  description = "Largest size of the group (Determined's max_instances)."
  type        = number

  validation {
    condition     = var.max_instances >= 1 && var.max_instances >= var.min_instances && floor(var.max_instances) == var.max_instances
    error_message = "max_instances must be a whole number >= 1 and >= min_instances."
  }
}

variable "desired_capacity" {
  description = "Instances wanted now, applied on every apply; only with terraform_owns_desired_capacity (the provisioner's `tofu apply -var desired_capacity=N` path). Null: min_instances."
  type        = number
  default     = null

  validation {
    condition     = var.desired_capacity == null || (var.desired_capacity >= var.min_instances && var.desired_capacity <= var.max_instances)
    error_message = "desired_capacity must lie between min_instances and max_instances."
  }
  validation {
    condition     = var.desired_capacity == null || var.terraform_owns_desired_capacity
    error_message = "desired_capacity is only applied when terraform_owns_desired_capacity = true; otherwise the provisioner sets the count through the Auto Scaling API and the group starts at min_instances."
  }
}

variable "terraform_owns_desired_capacity" {
  description = "True: every apply sets the group to desired_capacity. False (default): the group starts at min_instances, the provisioner sets the count through the Auto Scaling API, and a plan never undoes that."
  type        = bool
  default     = false
}

variable "purchase" {
  description = "On-demand or spot: on_demand_base_capacity instances on demand, then on_demand_percentage_above_base_capacity percent of the rest (0 = all spot), spot_allocation_strategy for the spot part."
  type = object({
    on_demand_base_capacity                  = optional(number, 0)
    on_demand_percentage_above_base_capacity = optional(number, 100)
    spot_allocation_strategy                 = optional(string, "capacity-optimized-prioritized")
  })
  default = {}

  validation {
    condition     = var.purchase.on_demand_base_capacity >= 0 && var.purchase.on_demand_percentage_above_base_capacity >= 0 && var.purchase.on_demand_percentage_above_base_capacity <= 100
    error_message = "purchase.on_demand_base_capacity must be >= 0 and purchase.on_demand_percentage_above_base_capacity between 0 and 100."
  }
  validation {
    condition     = contains(["lowest-price", "capacity-optimized", "capacity-optimized-prioritized"], var.purchase.spot_allocation_strategy)
    error_message = "purchase.spot_allocation_strategy must be lowest-price, capacity-optimized or capacity-optimized-prioritized."
  }
}

variable "security_group_ids" {
  description = "Security groups to add to the pool's own (ingress only from the pool, egress only where the workers need)."
  type        = list(string)
  default     = []
}

variable "tags" {
  description = "Tags for every resource; the group propagates them (and keel:pool, keel:roles) to its instances."
  type        = map(string)
  default     = {}
}
