# The bucket behind Keel's storage root (s3://<bucket>/<prefix>): versioned, encrypted, private,
# TLS-only, and with lifecycle rules that expire old checkpoint versions and abandoned uploads.
# The bucket's settings are its inline blocks: the only form both provider 3.x and 5.x accept (the
# separate aws_s3_bucket_versioning/..._lifecycle_configuration resources do not exist in 3.x).

locals {
  root_prefix = var.storage_prefix == "" ? "" : "${var.storage_prefix}/"
}

resource "aws_s3_bucket" "this" {
  #checkov:skip=CKV_AWS_144:cross-region replication doubles the storage bill; checkpoints can be retrained and tables re-ingested, so replication is an account-level choice
  #checkov:skip=CKV2_AWS_62:nothing consumes bucket events; Keel tracks its objects in its own catalog
  #checkov:skip=CKV_AWS_145:SSE-S3 is the default so the module works without a KMS key; kms_key_arn switches to SSE-KMS
  #checkov:skip=CKV_AWS_18:access logging needs a second bucket; access_log_bucket turns it on
  bucket        = var.bucket_name
  force_destroy = var.force_destroy
  tags          = var.tags

  versioning {
    enabled = true
  }

  server_side_encryption_configuration {
    rule {
      apply_server_side_encryption_by_default {
        sse_algorithm     = var.kms_key_arn == null ? "AES256" : "aws:kms"
        kms_master_key_id = var.kms_key_arn
      }
      bucket_key_enabled = var.kms_key_arn != null
    }
  }

  # Checkpoints: Keel writes each one once and its GC deletes it later; the versions that deletion and
  # any overwrite leave behind are expired after checkpoint_noncurrent_days, then the delete markers.
  lifecycle_rule {
    id                                     = "expire-old-checkpoint-versions"
    enabled                                = true
    prefix                                 = "${local.root_prefix}checkpoints/"
    abort_incomplete_multipart_upload_days = var.abort_incomplete_multipart_upload_days

    noncurrent_version_expiration {
      days = var.checkpoint_noncurrent_days
    }
    expiration {
      expired_object_delete_marker = true
    }
  }

  lifecycle_rule {
    id                                     = "expire-old-versions"
    enabled                                = true
    prefix                                 = local.root_prefix
    abort_incomplete_multipart_upload_days = var.abort_incomplete_multipart_upload_days

    noncurrent_version_expiration {
      days = var.noncurrent_version_days
    }
  }

  dynamic "logging" {
    for_each = var.access_log_bucket == null ? [] : [var.access_log_bucket]
    content {
      target_bucket = logging.value
      target_prefix = "s3-access/${var.bucket_name}/"
    }
  }
}

resource "aws_s3_bucket_public_access_block" "this" {
  bucket                  = aws_s3_bucket.this.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_policy" "tls_only" {
  bucket = aws_s3_bucket.this.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "s3:*"
      Resource  = [aws_s3_bucket.this.arn, "${aws_s3_bucket.this.arn}/*"]
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
  # S3 refuses a policy while the public access block is being written
  depends_on = [aws_s3_bucket_public_access_block.this]
}
