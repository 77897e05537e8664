# Training workers on GPU instances: `keel worker --roles TRAIN --pool <pool> --slots <GPUs>`, one slot
# per GPU. Everything else is the shared worker-pool module.

locals {
  # GPUs per instance type of the x86_64 NVIDIA families the Deep Learning AMI supports. A type not listed
  # here is refused (see variable instance_types): its GPU count, and so --slots, would be a guess.
  gpus = merge(
    { for p in setproduct(["g4dn", "g5", "g6", "g6e"], ["xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge"]) : join(".", p) => 1 },
    { for p in setproduct(["g5", "g6", "g6e"], ["12xlarge", "24xlarge"]) : join(".", p) => 4 },
    { "g4dn.12xlarge" = 4, "g4dn.metal" = 8, "g5.48xlarge" = 8, "g6.48xlarge" = 8, "g6e.48xlarge" = 8 },
    { "p3.2xlarge" = 1, "p3.8xlarge" = 4, "p3.16xlarge" = 8, "p3dn.24xlarge" = 8 },
    { "p4d.24xlarge" = 8, "p4de.24xlarge" = 8, "p5.48xlarge" = 8, "p5e.48xlarge" = 8, "p5en.48xlarge" = 8 },
  )
  gpus_per_instance = local.gpus[var.instance_types[0]]
}

module "pool" {
  source = "../worker-pool"

  pool                            = var.pool
  name_prefix                     = var.name_prefix
  roles                           = ["TRAIN"]
  slots_per_instance              = local.gpus_per_instance
  instance_types                  = var.instance_types
  cluster                         = var.cluster
  instance_profile_name           = var.instance_profile_name
  ami_id                          = var.ami_id
  ami_name_filter                 = "Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 22.04) *"
  ami_owners                      = ["amazon"]
  root_volume_size_gb             = var.root_volume_size_gb
  min_instances                   = var.min_instances
  max_instances                   = var.max_instances
  desired_capacity                = var.desired_capacity
  terraform_owns_desired_capacity = var.terraform_owns_desired_capacity
  purchase                        = var.purchase
  # the provisioner reads a pool's sizing from its group: slots per instance and the gang it must hold
  tags = merge(var.tags, {
    "keel:slots-per-instance" = tostring(local.gpus_per_instance)
    "keel:largest-gang-slots" = tostring(var.largest_gang_slots)
  })
}
