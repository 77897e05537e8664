# Unit tests: plan against a mocked AWS provider; worker-pool's tests cover the shared resources.

mock_provider "aws" {}

variables {
  instance_profile_name = "keel-control-worker"
  max_instances         = 2
  cluster = {
    temporal_address = "temporal.internal:7233"
    storage_root     = "s3://keel-data/keel"
    keel_jar_url     = "s3://keel-data/releases/keel-service.jar"
    subnet_ids       = ["subnet-0a1"]
  }
}

run "control_etl_and_inference_workers_without_training_flags" {
  command = plan

  assert {
    condition     = module.pool.worker_command == "keel worker --roles CONTROL,ETL,INFER"
    error_message = "worker command: ${module.pool.worker_command}"
  }
  assert {
    condition     = module.pool.slots_per_instance == null
    error_message = "a CPU pool has no training slots"
  }
}

run "roles_can_be_narrowed" {
  command = plan
  variables {
    pool  = "infer"
    roles = ["INFER"]
  }

  assert {
    condition     = module.pool.worker_command == "keel worker --roles INFER"
    error_message = "worker command: ${module.pool.worker_command}"
  }
}

# --- bad input ---

run "rejects_training_workers" {
  command = plan
  variables {
    roles = ["CONTROL", "TRAIN"]
  }
  expect_failures = [var.roles]
}

run "rejects_a_gpu_instance_type" {
  command = plan
  variables {
    instance_types = ["g5.xlarge"]
  }
  expect_failures = [var.instance_types]
}

run "rejects_an_unknown_instance_type" {
  command = plan
  variables {
    instance_types = ["m6i.xlarge", "x9z.huge"]
  }
  expect_failures = [var.instance_types]
}
