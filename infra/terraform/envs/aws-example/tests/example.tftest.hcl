# Unit tests of the wiring: plan against a mocked AWS provider.

mock_provider "aws" {
  mock_resource "aws_s3_bucket" {
    defaults = {
      id  = "keel-example-data"
      arn = "arn:aws:s3:::keel-example-data"
    }
  }
  mock_data "aws_caller_identity" {
    defaults = {
      account_id = "123456789012"
    }
  }
}

variables {
  bucket_name      = "keel-example-data"
  temporal_address = "temporal.internal:7233"
  subnet_ids       = ["subnet-0a1", "subnet-0b2"]
}

run "pools_share_one_cluster_and_the_control_workers_may_scale_them" {
  command = plan

  assert {
    condition     = output.worker_commands.gpu == "keel worker --roles TRAIN --pool gpu --slots 1" && output.worker_commands.cpu == "keel worker --roles CONTROL,ETL,INFER"
    error_message = "worker commands: ${jsonencode(output.worker_commands)}"
  }
  assert {
    condition     = module.workers_role["control"].provisioner_policy_arn != null && module.workers_role["gpu"].provisioner_policy_arn == null
    error_message = "only the control workers get the provisioner policy"
  }
  assert {
    condition     = output.storage_root == "s3://keel-example-data/keel"
    error_message = "storage root: ${output.storage_root}"
  }
  assert {
    condition     = length(aws_s3_bucket_object.keel_jar) == 0
    error_message = "no jar path, yet an upload"
  }
}

run "a_local_jar_is_uploaded_where_the_instances_fetch_it" {
  command = plan
  variables {
    keel_jar_path = "tests/fake-keel-service.jar"
  }

  assert {
    condition     = aws_s3_bucket_object.keel_jar[0].key == "releases/keel-service.jar" && aws_s3_bucket_object.keel_jar[0].bucket == "keel-example-data"
    error_message = "the jar is not uploaded to releases/ in the storage bucket"
  }
}

run "the_gpu_pool_can_run_on_spot" {
  command = plan
  variables {
    gpu_spot = true
  }

  assert {
    condition     = output.gpu_autoscaling_group_name == "keel-gpu"
    error_message = "the spot GPU pool does not plan"
  }
}

# Bad input (a pool smaller than the largest gang, an unknown instance type, an unreachable Temporal
# address) fails inside the pool modules, whose own tests expect those failures: tofu test cannot
# expect a failure of a nested module's variable.
