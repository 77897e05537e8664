terraform {
  required_version = ">= 1.10.0"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 3.39.0, < 6.0.0"
    }
  }

  # Remote state in S3, configured at init (partial configuration), e.g.
  #   tofu init -backend-config=bucket=acme-tofu-state -backend-config=key=keel/aws-example.tfstate \
  #             -backend-config=region=us-east-1 -backend-config=use_lockfile=true
  # use_lockfile (S3-native locking) needs OpenTofu or Terraform >= 1.10; older ones use dynamodb_table.
  backend "s3" {}
}
