output "bucket_name" {
  description = "Name of the bucket."
  value       = aws_s3_bucket.this.id
}

output "bucket_arn" {
  description = "ARN of the bucket (the iam module's bucket_arn)."
  value       = aws_s3_bucket.this.arn
}

output "storage_prefix" {
  description = "Key prefix of the storage root (the iam module's storage_prefix)."
  value       = var.storage_prefix
}

output "storage_root" {
  description = "Keel's storage root: keel worker --storage / KEEL_STORAGE, and the pools' cluster.storage_root."
  value       = var.storage_prefix == "" ? "s3://${aws_s3_bucket.this.id}" : "s3://${aws_s3_bucket.this.id}/${var.storage_prefix}"
}
