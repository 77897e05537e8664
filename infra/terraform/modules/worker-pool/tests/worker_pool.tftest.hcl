# Unit tests: plan against a mocked AWS provider (no API calls; the provider binary supplies the schema).

mock_provider "aws" {
  mock_data "aws_subnet" {
    defaults = {
      vpc_id     = "vpc-0a1b2c3d"
      cidr_block = "172.31.0.0/20"
    }
  }
  mock_data "aws_vpc" {
    defaults = {
      cidr_block              = "172.31.0.0/16"
      cidr_block_associations = [{ association_id = "vpc-cidr-assoc-1", cidr_block = "172.31.0.0/16", state = "associated" }]
    }
  }
  mock_data "aws_ami" {
    defaults = {
      id               = "ami-0123456789abcdef0"
      root_device_name = "/dev/sda1"
    }
  }
  mock_resource "aws_launch_template" {
    defaults = {
      id             = "lt-0123456789abcdef0"
      latest_version = 1
    }
  }
  mock_resource "aws_security_group" {
    defaults = {
      id = "sg-0123456789abcdef0"
    }
  }
}

variables {
  pool                  = "gpu"
  roles                 = ["TRAIN"]
  slots_per_instance    = 4
  instance_types        = ["g5.12xlarge", "g6.12xlarge"]
  instance_profile_name = "keel-gpu-worker"
  max_instances         = 3
  cluster = {
    temporal_address = "temporal.internal:7233"
    storage_root     = "s3://keel-data/keel"
    keel_jar_url     = "s3://keel-data/releases/keel-service.jar"
    subnet_ids       = ["subnet-0a1", "subnet-0b2"]
  }
}

run "user_data_starts_the_keel_worker_as_a_systemd_unit" {
  command = plan

  assert {
    condition     = output.worker_command == "keel worker --roles TRAIN --pool gpu --slots 4"
    error_message = "worker command: ${output.worker_command}"
  }
  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "ExecStart=/usr/local/bin/keel worker --roles TRAIN --pool gpu --slots 4")
    error_message = "the unit does not run the keel worker command"
  }
  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "TEMPORAL_ADDRESS=temporal.internal:7233") && strcontains(base64decode(aws_launch_template.this.user_data), "KEEL_STORAGE=s3://keel-data/keel")
    error_message = "user data lacks the Temporal address or the storage root"
  }
  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "systemctl enable --now keel-worker.service")
    error_message = "user data does not start the unit"
  }
  assert {
    condition     = !strcontains(base64decode(aws_launch_template.this.user_data), "TEMPORAL_API_KEY")
    error_message = "no API key was configured, yet user data reads one"
  }
}

run "instances_allow_imdsv2_only_and_boot_an_encrypted_volume" {
  command = plan

  assert {
    condition     = aws_launch_template.this.metadata_options[0].http_tokens == "required" && aws_launch_template.this.metadata_options[0].http_put_response_hop_limit == 1
    error_message = "IMDSv1 is not disabled"
  }
  assert {
    condition     = aws_launch_template.this.block_device_mappings[0].ebs[0].encrypted == "true" && aws_launch_template.this.block_device_mappings[0].device_name == "/dev/sda1"
    error_message = "root volume not encrypted or on the wrong device"
  }
  assert {
    condition     = aws_launch_template.this.image_id == "ami-0123456789abcdef0"
    error_message = "the looked-up AMI is not used"
  }
}

run "group_falls_back_over_instance_types_and_tags_the_pool" {
  command = plan

  assert {
    condition     = [for o in aws_autoscaling_group.this.mixed_instances_policy[0].launch_template[0].override : o.instance_type] == ["g5.12xlarge", "g6.12xlarge"]
    error_message = "overrides are not the instance types in order"
  }
  assert {
    condition     = aws_autoscaling_group.this.mixed_instances_policy[0].instances_distribution[0].on_demand_percentage_above_base_capacity == 100 && !aws_autoscaling_group.this.capacity_rebalance
    error_message = "the default is not all on demand"
  }
  assert {
    condition     = contains([for t in aws_autoscaling_group.this.tag : "${t.key}=${t.value}:${t.propagate_at_launch}"], "keel:pool=gpu:true")
    error_message = "the group does not propagate keel:pool=gpu at launch"
  }
  assert {
    condition     = aws_autoscaling_group.this.name == "keel-gpu" && aws_autoscaling_group.this.min_size == 0 && aws_autoscaling_group.this.max_size == 3
    error_message = "name, min or max wrong"
  }
}

# That a plan leaves a desired capacity set through the API alone is shown against moto
# (GpuPoolModuleAppliesAgainstMotoTest): the mock provider invents a value for an attribute left unset.

run "only_the_pool_itself_may_connect_for_gang_ranks" {
  command = plan

  assert {
    condition     = [for r in aws_security_group.this.ingress : "${r.from_port}-${r.to_port}:${r.self}:${jsonencode(r.cidr_blocks)}"] == ["1024-65535:true:null"]
    error_message = "ingress other than the pool's own ranks"
  }
}

run "desired_capacity_follows_the_variable_when_terraform_owns_it" {
  command = plan
  variables {
    terraform_owns_desired_capacity = true
    desired_capacity                = 2
  }

  assert {
    condition     = aws_autoscaling_group.this.desired_capacity == 2
    error_message = "desired_capacity does not follow the variable"
  }
}

run "spot_purchase_turns_on_capacity_rebalance" {
  command = plan
  variables {
    purchase = { on_demand_percentage_above_base_capacity = 0 }
  }

  assert {
    condition     = aws_autoscaling_group.this.capacity_rebalance && aws_autoscaling_group.this.mixed_instances_policy[0].instances_distribution[0].spot_allocation_strategy == "capacity-optimized-prioritized"
    error_message = "spot pool without capacity rebalance or prioritized allocation"
  }
}

run "temporal_cloud_api_key_is_read_from_ssm_at_boot" {
  command = plan
  variables {
    cluster = { temporal_address = "ns.acct.tmprl.cloud:7233", temporal_namespace = "ns.acct", temporal_tls = true, temporal_api_key_ssm_parameter = "/keel/temporal-api-key", storage_root = "s3://keel-data/keel", keel_jar_url = "https://releases.example.com/keel-service.jar", subnet_ids = ["subnet-0a1"] }
  }

  assert {
    condition     = strcontains(base64decode(aws_launch_template.this.user_data), "ssm get-parameter --with-decryption --name '/keel/temporal-api-key'") && strcontains(base64decode(aws_launch_template.this.user_data), "TEMPORAL_TLS=true")
    error_message = "the API key is not read from SSM, or TLS is off"
  }
  assert {
    condition     = [for e in aws_security_group.this.egress : join(",", e.cidr_blocks) if e.from_port == 7233] == ["0.0.0.0/0"]
    error_message = "a DNS name should open the Temporal port to everywhere"
  }
}

run "private_temporal_address_in_the_vpc_is_reachable_and_only_the_vpc_is_opened" {
  command = plan
  variables {
    cluster = { temporal_address = "172.31.5.10:7233", storage_root = "s3://keel-data", keel_jar_url = "s3://keel-data/releases/keel-service.jar", subnet_ids = ["subnet-0a1"] }
  }

  assert {
    condition     = [for e in aws_security_group.this.egress : join(",", e.cidr_blocks) if e.from_port == 7233] == ["172.31.0.0/16"]
    error_message = "the Temporal rule does not open exactly the VPC"
  }
}

run "cpu_roles_run_without_slots_or_pool_flags" {
  command = plan
  variables {
    pool               = "cpu"
    roles              = ["CONTROL", "ETL", "INFER"]
    slots_per_instance = null
    instance_types     = ["m6i.xlarge"]
  }

  assert {
    condition     = output.worker_command == "keel worker --roles CONTROL,ETL,INFER"
    error_message = "worker command: ${output.worker_command}"
  }
}

# --- bad input ---

run "rejects_a_temporal_address_outside_the_vpc" {
  command = plan
  variables {
    cluster = { temporal_address = "10.9.0.5:7233", storage_root = "s3://keel-data", keel_jar_url = "s3://keel-data/releases/keel-service.jar", subnet_ids = ["subnet-0a1"] }
  }
  expect_failures = [aws_security_group.this]
}

run "rejects_a_loopback_temporal_address" {
  command = plan
  variables {
    cluster = { temporal_address = "localhost:7233", storage_root = "s3://keel-data", keel_jar_url = "s3://keel-data/releases/keel-service.jar", subnet_ids = ["subnet-0a1"] }
  }
  expect_failures = [var.cluster]
}

run "rejects_a_temporal_address_without_a_port" {
  command = plan
  variables {
    cluster = { temporal_address = "temporal.internal", storage_root = "s3://keel-data", keel_jar_url = "s3://keel-data/releases/keel-service.jar", subnet_ids = ["subnet-0a1"] }
  }
  expect_failures = [var.cluster]
}

run "rejects_an_api_key_without_tls" {
  command = plan
  variables {
    cluster = { temporal_address = "ns.acct.tmprl.cloud:7233", temporal_api_key_ssm_parameter = "/keel/temporal-api-key", storage_root = "s3://keel-data", keel_jar_url = "s3://keel-data/releases/keel-service.jar", subnet_ids = ["subnet-0a1"] }
  }
  expect_failures = [var.cluster]
}

run "rejects_train_workers_without_slots" {
  command = plan
  variables {
    slots_per_instance = null
  }
  expect_failures = [var.slots_per_instance]
}

run "rejects_desired_capacity_above_max" {
  command = plan
  variables {
    terraform_owns_desired_capacity = true
    desired_capacity                = 4
  }
  expect_failures = [var.desired_capacity]
}

run "rejects_desired_capacity_that_terraform_does_not_own" {
  command = plan
  variables {
    desired_capacity = 1
  }
  expect_failures = [var.desired_capacity]
}

run "rejects_a_malformed_instance_type" {
  command = plan
  variables {
    instance_types = ["g5 xlarge"]
  }
  expect_failures = [var.instance_types]
}
