output "pool" {
  description = "Every output of the worker-pool module: autoscaling_group_name, autoscaling_group_arn, launch_template_id, launch_template_version, security_group_id, ami_id, worker_command, slots_per_instance."
  value       = module.pool
}

output "gpus_per_instance" {
  description = "GPUs per instance, which is each worker's --slots."
  value       = local.gpus_per_instance
}
