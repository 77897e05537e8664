output "role_name" {
  description = "Name of the workers' role."
  value       = aws_iam_role.this.name
}

output "role_arn" {
  description = "ARN of the workers' role."
  value       = aws_iam_role.this.arn
}

output "instance_profile_name" {
  description = "Instance profile for the pools' instance_profile_name."
  value       = aws_iam_instance_profile.this.name
}

output "storage_policy_arn" {
  description = "ARN of the storage policy."
  value       = aws_iam_policy.storage.arn
}

output "provisioner_policy_arn" {
  description = "ARN of the provisioner's policy (null when provisioner = false)."
  value       = var.provisioner ? aws_iam_policy.provisioner[0].arn : null
}
