variable "bucket_name" {
  description = "Name of the bucket to create. S3 names are global: one taken by any account fails the apply (BucketAlreadyExists), one you own already fails too (BucketAlreadyOwnedByYou; import it instead)."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", var.bucket_name))
    error_message = "bucket_name must be 3-63 characters of a-z, 0-9, '.' and '-', starting and ending with a letter or digit."
  }
  validation {
    condition = alltrue([
      !can(regex("\\.\\.|\\.-|-\\.", var.bucket_name)),
      !can(regex("^[0-9]+(\\.[0-9]+){3}$", var.bucket_name)),
      !startswith(var.bucket_name, "xn--"), !startswith(var.bucket_name, "sthree-"),
      !endswith(var.bucket_name, "-s3alias"), !endswith(var.bucket_name, "--ol-s3"),
    ])
    error_message = "bucket_name breaks an S3 naming rule: no '..', '.-' or '-.', not an IP address, no xn--/sthree- prefix, no -s3alias/--ol-s3 suffix."
  }
}

variable "storage_prefix" {
  description = "Key prefix of Keel's storage root inside the bucket (\"\" for the whole bucket); the root is s3://<bucket>/<prefix>."
  type        = string
  default     = "keel"

  validation {
    condition     = var.storage_prefix == "" || can(regex("^[A-Za-z0-9!_.*'()-]+(/[A-Za-z0-9!_.*'()-]+)*$", var.storage_prefix))
    error_message = "storage_prefix must be empty or path segments without leading, trailing or double '/'."
  }
}

variable "kms_key_arn" {
  description = "KMS key for SSE-KMS; null encrypts with S3-managed keys (SSE-S3, AES256)."
  type        = string
  default     = null

  validation {
    condition     = var.kms_key_arn == null || can(regex("^arn:aws[a-z-]*:kms:", var.kms_key_arn))
    error_message = "kms_key_arn must be null or a KMS key ARN."
  }
}

variable "checkpoint_noncurrent_days" {
  description = "Days an overwritten or deleted checkpoint object version (under <prefix>/checkpoints/) is kept before S3 expires it. Keel's checkpoint GC deletes checkpoints; versioning would otherwise keep every byte."
  type        = number
  default     = 7

  validation {
    condition     = var.checkpoint_noncurrent_days >= 1
    error_message = "checkpoint_noncurrent_days must be at least 1."
  }
}

variable "noncurrent_version_days" {
  description = "Days any other noncurrent object version (tables, models, _keel) is kept."
  type        = number
  default     = 30

  validation {
    condition     = var.noncurrent_version_days >= var.checkpoint_noncurrent_days
    error_message = "noncurrent_version_days must be at least checkpoint_noncurrent_days."
  }
}

variable "abort_incomplete_multipart_upload_days" {
  description = "Days after which S3 drops the parts of an upload that never completed (a worker killed mid-checkpoint)."
  type        = number
  default     = 2

  validation {
    condition     = var.abort_incomplete_multipart_upload_days >= 1
    error_message = "abort_incomplete_multipart_upload_days must be at least 1."
  }
}

variable "access_log_bucket" {
  description = "Bucket that receives this bucket's server access logs; null: no access logging."
  type        = string
  default     = null
}

variable "force_destroy" {
  description = "Let a destroy delete a bucket that still holds objects (every checkpoint, table and model). Keep false outside tests."
  type        = bool
  default     = false
}

variable "tags" {
  description = "Tags of the bucket."
  type        = map(string)
  default     = {}
}
