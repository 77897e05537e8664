# Unit tests: plan against a mocked AWS provider. The worker-pool module's own tests cover the launch
# template, the group and the network checks; these pin what gpu-pool decides.

mock_provider "aws" {}

variables {
  instance_profile_name = "keel-gpu-worker"
  max_instances         = 2
  cluster = {
    temporal_address = "temporal.internal:7233"
    storage_root     = "s3://keel-data/keel"
    keel_jar_url     = "s3://keel-data/releases/keel-service.jar"
    subnet_ids       = ["subnet-0a1"]
  }
}

run "one_training_slot_per_gpu" {
  command = plan
  variables {
    instance_types = ["g5.12xlarge", "g6.12xlarge", "g4dn.12xlarge"]
  }

  assert {
    condition     = module.pool.worker_command == "keel worker --roles TRAIN --pool gpu --slots 4"
    error_message = "worker command: ${module.pool.worker_command}"
  }
  assert {
    condition     = output.gpus_per_instance == 4
    error_message = "g5.12xlarge has 4 GPUs"
  }
}

run "defaults_are_single_gpu_types_on_the_deep_learning_ami" {
  command = plan

  assert {
    condition     = module.pool.worker_command == "keel worker --roles TRAIN --pool gpu --slots 1"
    error_message = "worker command: ${module.pool.worker_command}"
  }
  assert {
    condition     = module.pool.slots_per_instance == 1
    error_message = "slots_per_instance output"
  }
}

run "a_pool_that_holds_the_largest_gang_is_accepted" {
  command = plan
  variables {
    instance_types     = ["p4d.24xlarge"]
    largest_gang_slots = 16
  }

  assert {
    condition     = output.gpus_per_instance == 8
    error_message = "p4d.24xlarge has 8 GPUs"
  }
}

# --- bad input ---

run "rejects_a_pool_smaller_than_the_largest_gang" {
  command = plan
  variables {
    instance_types     = ["g5.xlarge"]
    max_instances      = 3
    largest_gang_slots = 4
  }
  expect_failures = [var.largest_gang_slots]
}

run "rejects_an_unknown_instance_type" {
  command = plan
  variables {
    instance_types = ["g5.xlarge", "g9.mega"]
  }
  expect_failures = [var.instance_types]
}

run "rejects_a_cpu_instance_type" {
  command = plan
  variables {
    instance_types = ["m6i.xlarge"]
  }
  expect_failures = [var.instance_types]
}

run "rejects_fallbacks_with_another_gpu_count" {
  command = plan
  variables {
    instance_types = ["g5.12xlarge", "g5.xlarge"]
  }
  expect_failures = [var.instance_types]
}
