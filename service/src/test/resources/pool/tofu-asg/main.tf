# A pool whose desired count this configuration owns: a launch template and an Auto Scaling group in a
# moto server (var.endpoint), through the AWS provider from the local mirror (TF_CLI_CONFIG_FILE).
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "3.39.0"
    }
  }
}

variable "endpoint" {
  type = string
}

variable "group" {
  type = string
}

variable "desired_capacity" {
  type = number
  validation {
    condition     = var.desired_capacity >= 0 && var.desired_capacity <= 4
    error_message = "desired_capacity must be between 0 and 4 (max_size)."
  }
}

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "keel-test-access"
  secret_key                  = "keel-test-secret"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true
  max_retries                 = 2
  endpoints {
    ec2         = var.endpoint
    autoscaling = var.endpoint
    sts         = var.endpoint
    iam         = var.endpoint
  }
}

resource "aws_launch_template" "pool" {
  name          = "${var.group}-template"
  image_id      = "ami-12c6146b"
  instance_type = "t3.micro"
}

resource "aws_autoscaling_group" "pool" {
  name               = var.group
  min_size           = 0
  max_size           = 4
  desired_capacity   = var.desired_capacity
  availability_zones = ["us-east-1a"]

  launch_template {
    id      = aws_launch_template.pool.id
    version = "$Latest"
  }
}

output "desired_capacity" {
  value = aws_autoscaling_group.pool.desired_capacity
}
