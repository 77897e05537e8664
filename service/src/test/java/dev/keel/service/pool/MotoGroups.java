package dev.keel.service.pool;

import dev.keel.api.v1.AwsAutoScalingGroup;
import dev.keel.storage.testing.ExternalS3Server;
import java.net.URI;
import java.util.Map;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.autoscaling.model.AutoScalingGroup;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * A moto server of this test JVM's own ({@code .tools/s3env/bin/moto_server}, checking instance
 * types as EC2 does) and Auto Scaling groups made in it through the AWS SDK: a launch template and
 * a group, whose instances moto launches (with private addresses) but boots nothing.
 */
final class MotoGroups {
  static final String REGION = "us-east-1";
  private static URI endpoint;

  private MotoGroups() {}

  static synchronized URI endpoint() throws Exception {
    if (endpoint == null) {
      // moto checks no credentials, but the SDK's default chain needs some
      System.setProperty(
          "aws.accessKeyId", System.getProperty("aws.accessKeyId", "keel-test-access"));
      System.setProperty(
          "aws.secretAccessKey", System.getProperty("aws.secretAccessKey", "keel-test-secret"));
      endpoint =
          ExternalS3Server.startMoto(Map.of("MOTO_EC2_ENABLE_INSTANCE_TYPE_VALIDATION", "true"));
    }
    return endpoint;
  }

  /**
   * A group of 0 instances (at most {@code maxSize}) whose launch template asks for {@code
   * instanceType}.
   */
  static AwsAutoScalingGroup create(String name, String instanceType, int maxSize)
      throws Exception {
    try (Ec2Client ec2 = ec2();
        AutoScalingClient autoScaling = autoScaling()) {
      ec2.createLaunchTemplate(
          r ->
              r.launchTemplateName(name + "-template")
                  .launchTemplateData(d -> d.imageId("ami-12c6146b").instanceType(instanceType)));
      autoScaling.createAutoScalingGroup(
          r ->
              r.autoScalingGroupName(name)
                  .minSize(0)
                  .maxSize(maxSize)
                  .desiredCapacity(0)
                  .availabilityZones(REGION + "a")
                  .launchTemplate(
                      t -> t.launchTemplateName(name + "-template").version("$Latest")));
    }
    return AwsAutoScalingGroup.newBuilder()
        .setAutoScalingGroupName(name)
        .setRegion(REGION)
        .setEndpointOverride(endpoint().toString())
        .build();
  }

  static AutoScalingGroup describe(String name) throws Exception {
    try (AutoScalingClient autoScaling = autoScaling()) {
      return autoScaling
          .describeAutoScalingGroups(r -> r.autoScalingGroupNames(name))
          .autoScalingGroups()
          .get(0);
    }
  }

  static AutoScalingClient autoScaling() throws Exception {
    return AutoScalingClient.builder()
        .region(Region.of(REGION))
        .endpointOverride(endpoint())
        .build();
  }

  static Ec2Client ec2() throws Exception {
    return Ec2Client.builder().region(Region.of(REGION)).endpointOverride(endpoint()).build();
  }
}
