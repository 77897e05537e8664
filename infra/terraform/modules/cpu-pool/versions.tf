terraform {
  # Validation blocks here refer to other variables and locals: OpenTofu 1.12.6 is what the tests run;
  # Terraform has allowed such references since 1.9. The AWS provider is required by worker-pool.
  required_version = ">= 1.9.0"
}
