# An example Keel deployment on AWS: the storage bucket, two instance roles (GPU workers; control
# workers, which also run the provisioner), a GPU training pool and a CPU pool for control, ETL and
# inference. Temporal is an input: an existing cluster or a Temporal Cloud namespace.

locals {
  tags    = merge(var.tags, { "keel:deployment" = var.deployment })
  jar_key = "releases/keel-service.jar"
  jar_arn = "${module.storage.bucket_arn}/${local.jar_key}"

  cluster = {
    temporal_address               = var.temporal_address
    temporal_namespace             = var.temporal_namespace
    temporal_tls                   = var.temporal_tls
    temporal_api_key_ssm_parameter = var.temporal_api_key_ssm_parameter
    temporal_cidr_blocks           = var.temporal_cidr_blocks
    storage_root                   = module.storage.storage_root
    # through the uploaded object when apply uploads it, so the pools wait for the jar
    keel_jar_url = "s3://${module.storage.bucket_name}/${var.keel_jar_path == null ? local.jar_key : aws_s3_bucket_object.keel_jar[0].key}"
    subnet_ids   = var.subnet_ids
  }
  api_key_arn = (var.temporal_api_key_ssm_parameter == null ? null
  : "arn:aws:ssm:${var.region}:${data.aws_caller_identity.current.account_id}:parameter/${trimprefix(var.temporal_api_key_ssm_parameter, "/")}")
}

data "aws_caller_identity" "current" {}

module "storage" {
  source        = "../../modules/storage"
  bucket_name   = var.bucket_name
  force_destroy = var.force_destroy_bucket
  tags          = local.tags
}

resource "aws_s3_bucket_object" "keel_jar" {
  #checkov:skip=CKV_AWS_186:the bucket's default encryption (SSE-S3, or the storage module's KMS key) encrypts the jar
  count  = var.keel_jar_path == null ? 0 : 1
  bucket = module.storage.bucket_name
  key    = local.jar_key
  source = var.keel_jar_path
  etag   = filemd5(var.keel_jar_path)
  tags   = local.tags
}

# one role per pool: the GPU workers reach the storage root; the control workers also run the
# provisioner, so they may scale the pools
module "workers_role" {
  for_each = { gpu = false, control = true }

  source                             = "../../modules/iam"
  name                               = "${var.deployment}-${each.key}-worker"
  bucket_arn                         = module.storage.bucket_arn
  storage_prefix                     = module.storage.storage_prefix
  read_only_object_arns              = [local.jar_arn]
  temporal_api_key_ssm_parameter_arn = local.api_key_arn
  provisioner                        = each.value
  autoscaling_group_prefix           = "${var.deployment}-"
  tags                               = local.tags
}

module "gpu_pool" {
  source                          = "../../modules/gpu-pool"
  name_prefix                     = "${var.deployment}-"
  instance_types                  = var.gpu_instance_types
  largest_gang_slots              = var.largest_gang_slots
  cluster                         = local.cluster
  instance_profile_name           = module.workers_role["gpu"].instance_profile_name
  ami_id                          = var.gpu_ami_id
  max_instances                   = var.gpu_max_instances
  desired_capacity                = var.gpu_desired_capacity
  terraform_owns_desired_capacity = var.terraform_owns_desired_capacity
  purchase                        = var.gpu_spot ? { on_demand_percentage_above_base_capacity = 0 } : {}
  tags                            = local.tags
}

module "cpu_pool" {
  source                          = "../../modules/cpu-pool"
  name_prefix                     = "${var.deployment}-"
  instance_types                  = var.cpu_instance_types
  cluster                         = local.cluster
  instance_profile_name           = module.workers_role["control"].instance_profile_name
  ami_id                          = var.cpu_ami_id
  min_instances                   = var.cpu_min_instances
  max_instances                   = var.cpu_max_instances
  desired_capacity                = var.cpu_desired_capacity
  terraform_owns_desired_capacity = var.terraform_owns_desired_capacity
  tags                            = local.tags
}
