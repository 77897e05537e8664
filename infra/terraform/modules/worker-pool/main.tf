# A pool of Keel workers: a launch template whose user data installs `keel worker` as a systemd unit,
# an Auto Scaling group over it (on demand and/or spot, instance-type fallbacks), and a security group
# open only to the pool itself. gpu-pool and cpu-pool are thin wrappers that choose the roles and defaults.

locals {
  name   = "${var.name_prefix}${var.pool}"
  trains = contains(var.roles, "TRAIN")

  # the command the systemd unit runs; tests and the provisioner read it from the worker_command output
  worker_command = join(" ", concat(
    ["keel", "worker", "--roles", join(",", var.roles)],
    local.trains ? ["--pool", var.pool, "--slots", tostring(var.slots_per_instance)] : [],
  ))

  tags = merge(var.tags, {
    Name         = local.name
    "keel:pool"  = var.pool
    "keel:roles" = join(",", var.roles)
  })

  uses_spot = var.purchase.on_demand_percentage_above_base_capacity < 100

  ami_id           = var.ami_id != null ? var.ami_id : data.aws_ami.lookup[0].id
  root_device_name = var.ami_id != null ? var.root_device_name : data.aws_ami.lookup[0].root_device_name
}

# --- network: the VPC of the subnets, and whether the Temporal frontend can be reached from it ---

data "aws_subnet" "this" {
  for_each = toset(var.cluster.subnet_ids)
  id       = each.value
}

data "aws_vpc" "this" {
  id = values(data.aws_subnet.this)[0].vpc_id
}

locals {
  vpc_cidrs = distinct(concat([data.aws_vpc.this.cidr_block], [for a in data.aws_vpc.this.cidr_block_associations : a.cidr_block]))

  temporal_host = split(":", var.cluster.temporal_address)[0]
  temporal_port = tonumber(split(":", var.cluster.temporal_address)[1])
  # an IPv4 literal can be checked against CIDR blocks at plan time; a DNS name only at run time
  temporal_ipv4 = can(regex("^[0-9]{1,3}(\\.[0-9]{1,3}){3}$", local.temporal_host)) && can(cidrhost("${local.temporal_host}/32", 0))
  temporal_private = local.temporal_ipv4 && anytrue([
    for c in ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"] :
    cidrhost("${local.temporal_host}/${split("/", c)[1]}", 0) == cidrhost(c, 0)
  ])
  # where the security group lets the workers reach the frontend: a private address is reachable in this
  # VPC or in the networks named in temporal_cidr_blocks (peering, VPN); anything else where those say,
  # or anywhere when they say nothing
  temporal_cidrs = (local.temporal_private ? concat(local.vpc_cidrs, var.cluster.temporal_cidr_blocks)
  : length(var.cluster.temporal_cidr_blocks) > 0 ? var.cluster.temporal_cidr_blocks : ["0.0.0.0/0"])
  temporal_reachable = !local.temporal_ipv4 || anytrue([
    for c in local.temporal_cidrs : cidrhost("${local.temporal_host}/${split("/", c)[1]}", 0) == cidrhost(c, 0)
  ])
  # the HTTP(S) rules below already open 80 and 443 to everywhere; AWS refuses a duplicate rule
  temporal_egress_cidrs = contains([80, 443], local.temporal_port) ? setsubtract(local.temporal_cidrs, ["0.0.0.0/0"]) : toset(local.temporal_cidrs)
}

resource "aws_security_group" "this" {
  name_prefix = "${local.name}-"
  description = "Keel ${var.pool} workers: ingress only from the pool; egress to the pool, Temporal, HTTPS, HTTP"
  vpc_id      = data.aws_vpc.this.id
  tags        = local.tags

  # the ranks of a gang on different instances: rank 0's c10d TCPStore and the Gloo connections listen on
  # ephemeral ports (docs/distributed-training.md)
  ingress {
    description = "Gang ranks of this pool (c10d TCPStore, Gloo)"
    protocol    = "tcp"
    from_port   = 1024
    to_port     = 65535
    self        = true
  }
  egress {
    description = "Gang ranks of this pool (c10d TCPStore, Gloo)"
    protocol    = "tcp"
    from_port   = 1024
    to_port     = 65535
    self        = true
  }

  dynamic "egress" {
    for_each = length(local.temporal_egress_cidrs) > 0 ? [1] : []
    content {
      description = "Temporal frontend ${var.cluster.temporal_address}"
      protocol    = "tcp"
      from_port   = local.temporal_port
      to_port     = local.temporal_port
      cidr_blocks = sort(tolist(local.temporal_egress_cidrs))
    }
  }
  egress {
    description = "HTTPS: S3, SSM, Temporal Cloud, package mirrors"
    protocol    = "tcp"
    from_port   = 443
    to_port     = 443
    cidr_blocks = ["0.0.0.0/0"]
  }
  egress {
    description = "HTTP: Ubuntu package mirrors (apt)"
    protocol    = "tcp"
    from_port   = 80
    to_port     = 80
    cidr_blocks = ["0.0.0.0/0"]
  }

  lifecycle {
    create_before_destroy = true

    precondition {
      condition     = length(distinct([for s in data.aws_subnet.this : s.vpc_id])) == 1
      error_message = "cluster.subnet_ids must all be in one VPC; they are in ${join(", ", distinct([for s in data.aws_subnet.this : s.vpc_id]))}."
    }
    precondition {
      condition     = local.temporal_reachable
      error_message = "Temporal address ${var.cluster.temporal_address} is unreachable from the instances' subnets: ${local.temporal_host} is outside this VPC (${join(", ", local.vpc_cidrs)}) and outside cluster.temporal_cidr_blocks [${join(", ", var.cluster.temporal_cidr_blocks)}]. Give an address inside the VPC, or add the CIDR of the peered network the frontend is in to cluster.temporal_cidr_blocks."
    }
  }
}

# --- the instances: AMI, user data, launch template ---

data "aws_ami" "lookup" {
  count       = var.ami_id == null ? 1 : 0
  most_recent = true
  owners      = var.ami_owners

  filter {
    name   = "name"
    values = [var.ami_name_filter]
  }
  filter {
    name   = "architecture"
    values = ["x86_64"]
  }
}

resource "aws_launch_template" "this" {
  name_prefix            = "${local.name}-"
  description            = "Keel ${var.pool} workers: ${local.worker_command}"
  image_id               = local.ami_id
  update_default_version = true
  vpc_security_group_ids = concat([aws_security_group.this.id], var.security_group_ids)
  # The template itself carries no tags, the instances and volumes it launches do (below): moto 5.2.5,
  # the fake AWS of the integration tests, echoes a template's own tags back as a tag specification of
  # its launch data, which every later plan would show as drift.

  user_data = base64encode(templatefile("${path.module}/templates/user-data.sh.tftpl", {
    pool                     = var.pool
    worker_command           = local.worker_command
    temporal_address         = var.cluster.temporal_address
    temporal_namespace       = var.cluster.temporal_namespace
    temporal_tls             = var.cluster.temporal_tls
    temporal_api_key_ssm     = var.cluster.temporal_api_key_ssm_parameter
    storage_root             = var.cluster.storage_root
    keel_jar_url             = var.cluster.keel_jar_url
    stop_timeout_seconds     = 120
    restart_interval_seconds = 10
  }))

  iam_instance_profile {
    name = var.instance_profile_name
  }

  # IMDSv2 only; one hop, so a container on the host cannot reach the instance's credentials
  metadata_options {
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = 1
  }

  block_device_mappings {
    device_name = local.root_device_name
    ebs {
      volume_size           = var.root_volume_size_gb
      volume_type           = "gp3"
      encrypted             = true
      delete_on_termination = true
    }
  }

  tag_specifications {
    resource_type = "instance"
    tags          = local.tags
  }
  tag_specifications {
    resource_type = "volume"
    tags          = local.tags
  }
}

# --- the group ---

resource "aws_autoscaling_group" "this" {
  name                = local.name
  min_size            = var.min_instances
  max_size            = var.max_instances
  vpc_zone_identifier = var.cluster.subnet_ids
  # Set only when terraform owns the count. Left out otherwise: desired_capacity is optional and computed
  # in the provider, so a plan keeps whatever the provisioner set through SetDesiredCapacity. (This is
  # what ignore_changes would do, which cannot depend on a variable.)
  desired_capacity = var.terraform_owns_desired_capacity ? coalesce(var.desired_capacity, var.min_instances) : null
  # a GPU AMI boots, installs Java and starts the JVM before the instance is of use
  health_check_type         = "EC2"
  health_check_grace_period = 600
  # the provisioner watches the group and reports launch failures with their reason; an apply does not
  # wait (spot capacity may take long or never come)
  wait_for_capacity_timeout = "0"
  capacity_rebalance        = local.uses_spot

  mixed_instances_policy {
    instances_distribution {
      on_demand_allocation_strategy            = "prioritized"
      on_demand_base_capacity                  = var.purchase.on_demand_base_capacity
      on_demand_percentage_above_base_capacity = var.purchase.on_demand_percentage_above_base_capacity
      spot_allocation_strategy                 = var.purchase.spot_allocation_strategy
    }
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.this.id
        version            = aws_launch_template.this.latest_version
      }
      dynamic "override" {
        for_each = var.instance_types
        content {
          instance_type = override.value
        }
      }
    }
  }

  dynamic "tag" {
    for_each = local.tags
    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = true
    }
  }
}
