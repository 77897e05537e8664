# The instance role of a pool's workers: storage access limited to the storage root, and (separately,
# for the control workers) what the provisioner needs from the Auto Scaling API.

locals {
  root_prefix  = var.storage_prefix == "" ? "" : "${var.storage_prefix}/"
  root_objects = "${var.bucket_arn}/${local.root_prefix}*"

  storage_statements = concat(
    [
      {
        Sid      = "ListStorageRoot"
        Effect   = "Allow"
        Action   = ["s3:ListBucket", "s3:ListBucketVersions"]
        Resource = var.bucket_arn
        Condition = var.storage_prefix == "" ? null : {
          StringLike = { "s3:prefix" = [var.storage_prefix, "${local.root_prefix}*"] }
        }
      },
      {
        Sid      = "LocateBucket"
        Effect   = "Allow"
        Action   = ["s3:GetBucketLocation", "s3:ListBucketMultipartUploads"]
        Resource = var.bucket_arn
      },
      {
        Sid    = "ReadWriteStorageRoot"
        Effect = "Allow"
        Action = [
          "s3:GetObject", "s3:GetObjectVersion", "s3:PutObject", "s3:DeleteObject",
          "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts",
        ]
        Resource = local.root_objects
      },
    ],
    length(var.read_only_object_arns) == 0 ? [] : [{
      Sid      = "ReadReleases"
      Effect   = "Allow"
      Action   = ["s3:GetObject"]
      Resource = var.read_only_object_arns
    }],
    var.kms_key_arn == null ? [] : [{
      Sid      = "UseBucketKey"
      Effect   = "Allow"
      Action   = ["kms:Decrypt", "kms:GenerateDataKey"]
      Resource = var.kms_key_arn
    }],
    var.temporal_api_key_ssm_parameter_arn == null ? [] : [{
      Sid      = "ReadTemporalApiKey"
      Effect   = "Allow"
      Action   = ["ssm:GetParameter"]
      Resource = var.temporal_api_key_ssm_parameter_arn
    }],
  )
}

resource "aws_iam_role" "this" {
  name        = var.name
  description = "Keel workers: storage root ${var.bucket_arn}/${var.storage_prefix}"
  tags        = var.tags
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "ec2.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
}

resource "aws_iam_instance_profile" "this" {
  name = var.name
  role = aws_iam_role.this.name
  tags = var.tags
}

resource "aws_iam_policy" "storage" {
  name        = "${var.name}-storage"
  description = "Keel workers: list, read, write and delete under the storage root only"
  tags        = var.tags
  policy = jsonencode({
    Version = "2012-10-17"
    # drop the null Condition of an unconditioned statement: IAM refuses "Condition": null
    Statement = [for s in local.storage_statements : { for k, v in s : k => v if v != null }]
  })
}

resource "aws_iam_role_policy_attachment" "storage" {
  role       = aws_iam_role.this.name
  policy_arn = aws_iam_policy.storage.arn
}

resource "aws_iam_policy" "provisioner" {
  count       = var.provisioner ? 1 : 0
  name        = "${var.name}-provisioner"
  description = "Keel provisioner: scale the Keel pools' Auto Scaling groups (${var.autoscaling_group_prefix}*)"
  tags        = var.tags
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        Sid    = "ScaleKeelPools"
        Effect = "Allow"
        Action = [
          "autoscaling:SetDesiredCapacity",
          "autoscaling:SetInstanceProtection",
          "autoscaling:TerminateInstanceInAutoScalingGroup",
        ]
        Resource = "arn:aws:autoscaling:*:*:autoScalingGroup:*:autoScalingGroupName/${var.autoscaling_group_prefix}*"
      },
      {
        # Describe calls cannot be limited to resources: IAM only accepts "*" for them
        Sid    = "SeePools"
        Effect = "Allow"
        Action = [
          "autoscaling:DescribeAutoScalingGroups",
          "autoscaling:DescribeAutoScalingInstances",
          "autoscaling:DescribeScalingActivities",
          "ec2:DescribeInstances",
          "ec2:DescribeInstanceStatus",
        ]
        Resource = "*"
      },
    ]
  })
}

resource "aws_iam_role_policy_attachment" "provisioner" {
  count      = var.provisioner ? 1 : 0
  role       = aws_iam_role.this.name
  policy_arn = aws_iam_policy.provisioner[0].arn
}
