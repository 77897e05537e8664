variable "region" {
  description = "AWS region of everything here."
  type        = string
  default     = "us-east-1"
}

variable "deployment" {
  description = "Name of this Keel deployment: prefixes every AWS name (keel-gpu, keel-gpu-worker, ...)."
  type        = string
  default     = "keel"
}

variable "bucket_name" {
  description = "Storage bucket to create (globally unique)."
  type        = string
}

variable "force_destroy_bucket" {
  description = "Let `tofu destroy` delete the bucket with every checkpoint, table and model in it."
  type        = bool
  default     = false
}

variable "temporal_address" {
  description = "host:port of an existing Temporal frontend, or <namespace>.<account>.tmprl.cloud:7233 for Temporal Cloud. Not built here."
  type        = string
}

variable "temporal_namespace" {
  description = "Temporal namespace."
  type        = string
  default     = "default"
}

variable "temporal_tls" {
  description = "Connect to Temporal over TLS (Temporal Cloud: true)."
  type        = bool
  default     = false
}

variable "temporal_api_key_ssm_parameter" {
  description = "Name of a SecureString SSM parameter holding a Temporal Cloud API key (null: none)."
  type        = string
  default     = null
}

variable "temporal_cidr_blocks" {
  description = "CIDR blocks of the network the Temporal frontend is in, when it is not this VPC (e.g. a peered VPC)."
  type        = list(string)
  default     = []
}

variable "subnet_ids" {
  description = "Private subnets (one VPC) for the workers; they need a route to S3, Temporal and package mirrors (NAT or endpoints)."
  type        = list(string)
}

variable "keel_jar_path" {
  description = "Local keel-service.jar (./mvnw -pl service -am package) that apply uploads to s3://<bucket>/releases/; null: upload it yourself."
  type        = string
  default     = null
}

variable "gpu_instance_types" {
  description = "GPU pool instance types, first choice first."
  type        = list(string)
  default     = ["g5.xlarge", "g6.xlarge", "g4dn.xlarge"]
}

variable "gpu_max_instances" {
  description = "Largest GPU pool."
  type        = number
  default     = 2
}

variable "largest_gang_slots" {
  description = "Slots of the largest gang (slots_per_trial) the GPU pool must hold at once."
  type        = number
  default     = 2
}

variable "gpu_spot" {
  description = "Run the GPU pool on spot instances (capacity-optimized-prioritized over the instance types); Keel's checkpoints make interruptions cost only the steps since the last one."
  type        = bool
  default     = false
}

variable "cpu_instance_types" {
  description = "CPU pool instance types, first choice first."
  type        = list(string)
  default     = ["m6i.xlarge", "m6a.xlarge", "m5.xlarge"]
}

variable "cpu_min_instances" {
  description = "Control/ETL/inference workers always running (the provisioner runs on them)."
  type        = number
  default     = 1
}

variable "cpu_max_instances" {
  description = "Largest CPU pool."
  type        = number
  default     = 2
}

variable "terraform_owns_desired_capacity" {
  description = "True when the provisioner scales with `tofu apply -var gpu_desired_capacity=N`; false when it calls SetDesiredCapacity."
  type        = bool
  default     = false
}

variable "gpu_desired_capacity" {
  description = "GPU instances wanted now (only with terraform_owns_desired_capacity)."
  type        = number
  default     = null
}

variable "cpu_desired_capacity" {
  description = "CPU instances wanted now (only with terraform_owns_desired_capacity)."
  type        = number
  default     = null
}

variable "gpu_ami_id" {
  description = "GPU AMI; null: the newest Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 22.04)."
  type        = string
  default     = null
}

variable "cpu_ami_id" {
  description = "CPU AMI; null: the newest Ubuntu 22.04 server AMI."
  type        = string
  default     = null
}

variable "tags" {
  description = "Tags for every resource."
  type        = map(string)
  default     = {}
}
