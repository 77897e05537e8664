variable "name" {
  description = "Name of the role and its instance profile, e.g. keel-gpu-worker."
  type        = string

  validation {
    condition     = can(regex("^[A-Za-z0-9+=,.@_-]{1,56}$", var.name))
    error_message = "name must be 1-56 characters of letters, digits and +=,.@_- (the policies add a suffix of up to 8)."
  }
}

variable "bucket_arn" {
  description = "ARN of the storage bucket (the storage module's bucket_arn)."
  type        = string

  validation {
    condition     = can(regex("^arn:aws[a-z-]*:s3:::[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", var.bucket_arn))
    error_message = "bucket_arn must be an S3 bucket ARN, arn:aws:s3:::<bucket>."
  }
}

variable "storage_prefix" {
  description = "Key prefix of the storage root in the bucket (\"\": the whole bucket). The workers may list, read, write and delete there only."
  type        = string
  default     = "keel"

  validation {
    condition     = var.storage_prefix == "" || can(regex("^[^/].*[^/]$|^[^/]$", var.storage_prefix))
    error_message = "storage_prefix must not start or end with '/'."
  }
}

variable "read_only_object_arns" {
  description = "Further objects the workers may only read, e.g. the keel-service.jar the user data downloads."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for a in var.read_only_object_arns : can(regex("^arn:aws[a-z-]*:s3:::[^/]+/.+$", a))])
    error_message = "read_only_object_arns must be S3 object ARNs (arn:aws:s3:::<bucket>/<key>)."
  }
}

variable "kms_key_arn" {
  description = "KMS key of the bucket's SSE-KMS encryption, if any: the workers get Decrypt and GenerateDataKey on it."
  type        = string
  default     = null
}

variable "temporal_api_key_ssm_parameter_arn" {
  description = "ARN of the SSM parameter holding a Temporal Cloud API key, if any: the workers may read it at boot."
  type        = string
  default     = null

  validation {
    condition     = var.temporal_api_key_ssm_parameter_arn == null || can(regex("^arn:aws[a-z-]*:ssm:[a-z0-9-]+:[0-9]{12}:parameter/", var.temporal_api_key_ssm_parameter_arn))
    error_message = "temporal_api_key_ssm_parameter_arn must be an SSM parameter ARN."
  }
}

variable "provisioner" {
  description = "Attach the provisioner's policy: set the desired capacity and scale-in protection of (and terminate instances in) the Auto Scaling groups named <autoscaling_group_prefix>*, and describe groups and instances. For the role of the workers that run the provisioner (keel-control)."
  type        = bool
  default     = false
}

variable "autoscaling_group_prefix" {
  description = "Name prefix of the Auto Scaling groups the provisioner may scale (the pools' name_prefix)."
  type        = string
  default     = "keel-"

  validation {
    condition     = length(var.autoscaling_group_prefix) >= 1 && !can(regex("[*?]", var.autoscaling_group_prefix))
    error_message = "autoscaling_group_prefix must be a non-empty literal prefix (no wildcards): an empty one would let the provisioner scale every group in the account."
  }
}

variable "tags" {
  description = "Tags of the role, profile and policies."
  type        = map(string)
  default     = {}
}
