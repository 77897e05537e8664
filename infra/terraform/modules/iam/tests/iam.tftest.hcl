# Unit tests: plan against a mocked AWS provider; the policies are read back as JSON.

mock_provider "aws" {}

variables {
  name       = "keel-gpu-worker"
  bucket_arn = "arn:aws:s3:::keel-data-test"
}

run "workers_reach_only_the_storage_root" {
  command = plan

  assert {
    condition     = jsondecode(aws_iam_role.this.assume_role_policy).Statement[0].Principal.Service == "ec2.amazonaws.com"
    error_message = "the role is not for EC2 instances"
  }
  assert {
    condition     = [for s in jsondecode(aws_iam_policy.storage.policy).Statement : s.Resource if s.Sid == "ReadWriteStorageRoot"] == ["arn:aws:s3:::keel-data-test/keel/*"]
    error_message = "object access is not limited to the storage root"
  }
  assert {
    condition     = [for s in jsondecode(aws_iam_policy.storage.policy).Statement : s.Condition.StringLike["s3:prefix"] if s.Sid == "ListStorageRoot"] == [["keel", "keel/*"]]
    error_message = "listing is not limited to the storage root"
  }
  assert {
    condition     = alltrue([for s in jsondecode(aws_iam_policy.storage.policy).Statement : !contains(flatten([s.Action]), "s3:*")])
    error_message = "a wildcard S3 action"
  }
}

run "the_provisioner_policy_is_separate_and_off_by_default" {
  command = plan

  assert {
    condition     = length(aws_iam_policy.provisioner) == 0 && length(aws_iam_role_policy_attachment.provisioner) == 0
    error_message = "the provisioner policy is attached to a role that did not ask for it"
  }
}

run "the_provisioner_may_scale_only_keel_groups" {
  command = plan
  variables {
    provisioner = true
  }

  assert {
    condition = [for s in jsondecode(aws_iam_policy.provisioner[0].policy).Statement : s.Action if s.Sid == "ScaleKeelPools"] == [[
      "autoscaling:SetDesiredCapacity", "autoscaling:SetInstanceProtection", "autoscaling:TerminateInstanceInAutoScalingGroup",
    ]]
    error_message = "scaling actions"
  }
  assert {
    condition     = endswith([for s in jsondecode(aws_iam_policy.provisioner[0].policy).Statement : s.Resource if s.Sid == "ScaleKeelPools"][0], ":autoScalingGroupName/keel-*")
    error_message = "scaling is not limited to the keel- groups"
  }
}

run "optional_grants_appear_only_when_asked_for" {
  command = plan
  variables {
    storage_prefix                     = ""
    read_only_object_arns              = ["arn:aws:s3:::keel-releases/keel-service-0.1.0.jar"]
    kms_key_arn                        = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    temporal_api_key_ssm_parameter_arn = "arn:aws:ssm:eu-west-1:123456789012:parameter/keel/temporal-api-key"
  }

  assert {
    condition     = [for s in jsondecode(aws_iam_policy.storage.policy).Statement : s.Sid] == ["ListStorageRoot", "LocateBucket", "ReadWriteStorageRoot", "ReadReleases", "UseBucketKey", "ReadTemporalApiKey"]
    error_message = "statements: ${join(", ", [for s in jsondecode(aws_iam_policy.storage.policy).Statement : s.Sid])}"
  }
  assert {
    condition     = !can(jsondecode(aws_iam_policy.storage.policy).Statement[0].Condition)
    error_message = "the whole bucket needs no prefix condition"
  }
}

# --- bad input ---

run "rejects_a_bucket_name_in_place_of_its_arn" {
  command = plan
  variables {
    bucket_arn = "keel-data-test"
  }
  expect_failures = [var.bucket_arn]
}

run "rejects_an_empty_autoscaling_group_prefix" {
  command = plan
  variables {
    provisioner              = true
    autoscaling_group_prefix = ""
  }
  expect_failures = [var.autoscaling_group_prefix]
}
