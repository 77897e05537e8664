# Control, ETL and inference workers on CPU instances: `keel worker --roles CONTROL,ETL,INFER` on plain
# Ubuntu, all on demand: the control workers run every pool's provisioner and the workflows' control
# activities, which a spot interruption would stall. Everything else is the shared worker-pool module.

module "pool" {
  source = "../worker-pool"

  pool                            = var.pool
  name_prefix                     = var.name_prefix
  roles                           = var.roles
  instance_types                  = var.instance_types
  cluster                         = var.cluster
  instance_profile_name           = var.instance_profile_name
  ami_id                          = var.ami_id
  root_volume_size_gb             = var.root_volume_size_gb
  min_instances                   = var.min_instances
  max_instances                   = var.max_instances
  desired_capacity                = var.desired_capacity
  terraform_owns_desired_capacity = var.terraform_owns_desired_capacity
  tags                            = var.tags
}
