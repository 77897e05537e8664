output "autoscaling_group_name" {
  description = "Name of the Auto Scaling group (what the provisioner's SetDesiredCapacity names)."
  value       = aws_autoscaling_group.this.name
}

output "autoscaling_group_arn" {
  description = "ARN of the Auto Scaling group."
  value       = aws_autoscaling_group.this.arn
}

output "launch_template_id" {
  description = "Id of the launch template."
  value       = aws_launch_template.this.id
}

output "launch_template_version" {
  description = "Version of the launch template the group launches."
  value       = aws_launch_template.this.latest_version
}

output "security_group_id" {
  description = "The pool's own security group (ingress only from itself)."
  value       = aws_security_group.this.id
}

output "ami_id" {
  description = "AMI the instances boot."
  value       = local.ami_id
}

output "worker_command" {
  description = "The command the instances' keel-worker.service runs."
  value       = local.worker_command
}

output "slots_per_instance" {
  description = "Training slots per instance (null for a pool without TRAIN)."
  value       = local.trains ? var.slots_per_instance : null
}
