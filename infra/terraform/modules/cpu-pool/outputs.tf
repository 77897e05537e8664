output "pool" {
  description = "Every output of the worker-pool module: autoscaling_group_name, autoscaling_group_arn, launch_template_id, launch_template_version, security_group_id, ami_id, worker_command."
  value       = module.pool
}
