# Unit tests: plan against a mocked AWS provider.

mock_provider "aws" {
  mock_resource "aws_s3_bucket" {
    defaults = {
      id  = "keel-data-test"
      arn = "arn:aws:s3:::keel-data-test"
    }
  }
}

variables {
  bucket_name = "keel-data-test"
}

run "bucket_is_versioned_encrypted_and_private" {
  command = plan

  assert {
    condition     = aws_s3_bucket.this.versioning[0].enabled
    error_message = "versioning is off"
  }
  assert {
    condition     = aws_s3_bucket.this.server_side_encryption_configuration[0].rule[0].apply_server_side_encryption_by_default[0].sse_algorithm == "AES256"
    error_message = "not SSE-S3 by default"
  }
  assert {
    condition = (aws_s3_bucket_public_access_block.this.block_public_acls && aws_s3_bucket_public_access_block.this.block_public_policy
    && aws_s3_bucket_public_access_block.this.ignore_public_acls && aws_s3_bucket_public_access_block.this.restrict_public_buckets)
    error_message = "public access is not blocked"
  }
  assert {
    condition     = jsondecode(aws_s3_bucket_policy.tls_only.policy).Statement[0].Condition.Bool["aws:SecureTransport"] == "false"
    error_message = "the policy does not deny plain HTTP"
  }
  assert {
    condition     = output.storage_root == "s3://keel-data-test/keel"
    error_message = "storage root: ${output.storage_root}"
  }
}

run "old_checkpoint_versions_expire_sooner_than_other_versions" {
  command = plan

  assert {
    condition     = aws_s3_bucket.this.lifecycle_rule[0].prefix == "keel/checkpoints/" && aws_s3_bucket.this.lifecycle_rule[0].noncurrent_version_expiration[0].days == 7
    error_message = "checkpoint rule"
  }
  assert {
    condition     = aws_s3_bucket.this.lifecycle_rule[0].expiration[0].expired_object_delete_marker
    error_message = "delete markers of expired checkpoints stay"
  }
  assert {
    condition     = aws_s3_bucket.this.lifecycle_rule[1].prefix == "keel/" && aws_s3_bucket.this.lifecycle_rule[1].noncurrent_version_expiration[0].days == 30
    error_message = "general rule"
  }
  assert {
    condition     = alltrue([for r in aws_s3_bucket.this.lifecycle_rule : r.abort_incomplete_multipart_upload_days == 2])
    error_message = "abandoned uploads are kept"
  }
}

run "a_kms_key_switches_to_sse_kms" {
  command = plan
  variables {
    kms_key_arn    = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    storage_prefix = ""
  }

  assert {
    condition     = aws_s3_bucket.this.server_side_encryption_configuration[0].rule[0].apply_server_side_encryption_by_default[0].sse_algorithm == "aws:kms"
    error_message = "not SSE-KMS"
  }
  assert {
    condition     = output.storage_root == "s3://keel-data-test" && aws_s3_bucket.this.lifecycle_rule[0].prefix == "checkpoints/"
    error_message = "an empty prefix is the whole bucket"
  }
}

# --- bad input ---

run "rejects_an_uppercase_bucket_name" {
  command = plan
  variables {
    bucket_name = "Keel-Data"
  }
  expect_failures = [var.bucket_name]
}

run "rejects_a_bucket_name_shaped_like_an_ip_address" {
  command = plan
  variables {
    bucket_name = "192.168.1.10"
  }
  expect_failures = [var.bucket_name]
}

run "rejects_a_prefix_with_a_trailing_slash" {
  command = plan
  variables {
    storage_prefix = "keel/"
  }
  expect_failures = [var.storage_prefix]
}
