output "storage_root" {
  description = "Keel's storage root (keel ... --storage)."
  value       = module.storage.storage_root
}

output "gpu_autoscaling_group_name" {
  description = "The GPU pool's Auto Scaling group (the provisioner scales it)."
  value       = module.gpu_pool.pool.autoscaling_group_name
}

output "cpu_autoscaling_group_name" {
  description = "The CPU pool's Auto Scaling group."
  value       = module.cpu_pool.pool.autoscaling_group_name
}

output "worker_commands" {
  description = "What each pool's instances run."
  value = {
    gpu = module.gpu_pool.pool.worker_command
    cpu = module.cpu_pool.pool.worker_command
  }
}

output "control_role_arn" {
  description = "Role of the control workers, which may scale the pools."
  value       = module.workers_role["control"].role_arn
}
