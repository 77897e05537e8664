terraform {
  # Validation blocks here refer to other variables and locals: OpenTofu 1.12.6 is what the tests run;
  # Terraform has allowed such references since 1.9.
  required_version = ">= 1.9.0"

  required_providers {
    # Tested with 3.39.0 only (the one release this build machine can have); every argument used is
    # one that 5.x accepts as well.
    aws = {
      source  = "hashicorp/aws"
      version = ">= 3.39.0, < 6.0.0"
    }
  }
}
