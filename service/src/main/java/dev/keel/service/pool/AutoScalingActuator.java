package dev.keel.service.pool;

import dev.keel.api.v1.AwsAutoScalingGroup;
import dev.keel.api.v1.PoolInstance;
import dev.keel.api.v1.PoolInstances;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.autoscaling.AutoScalingClientBuilder;
import software.amazon.awssdk.services.autoscaling.model.Activity;
import software.amazon.awssdk.services.autoscaling.model.AutoScalingGroup;
import software.amazon.awssdk.services.autoscaling.model.Instance;
import software.amazon.awssdk.services.autoscaling.model.ScalingActivityStatusCode;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.Ec2ClientBuilder;
import software.amazon.awssdk.services.ec2.model.Filter;

/**
 * A pool that is an EC2 Auto Scaling group, through the AWS SDK v2: DescribeAutoScalingGroups (plus
 * EC2 DescribeInstances for each instance's private address, and the group's failed scaling
 * activities as launch errors), SetDesiredCapacity without honouring the cooldown, and
 * SetInstanceProtection. Credentials come from the AWS default chain; {@code endpoint_override}
 * points both APIs elsewhere (a moto server in tests).
 */
public final class AutoScalingActuator implements PoolActuator {
  /** SetInstanceProtection takes at most this many instances per call. */
  private static final int PROTECTION_BATCH = 50;

  /** Failed launches older than this are history, not news. */
  private static final Duration RECENT = Duration.ofHours(1);

  private final String group;
  private final String where;
  private final AutoScalingClient autoScaling;
  private final Ec2Client ec2;

  public AutoScalingActuator(AwsAutoScalingGroup spec) {
    this.group = spec.getAutoScalingGroupName();
    this.where =
        (spec.getRegion().isBlank() ? "" : " in " + spec.getRegion())
            + (spec.getEndpointOverride().isBlank() ? "" : " at " + spec.getEndpointOverride());
    AutoScalingClientBuilder a = AutoScalingClient.builder();
    Ec2ClientBuilder e = Ec2Client.builder();
    if (!spec.getRegion().isBlank()) {
      a.region(Region.of(spec.getRegion()));
      e.region(Region.of(spec.getRegion()));
    }
    if (!spec.getEndpointOverride().isBlank()) {
      a.endpointOverride(URI.create(spec.getEndpointOverride()));
      e.endpointOverride(URI.create(spec.getEndpointOverride()));
    }
    try {
      this.autoScaling = a.build();
      this.ec2 = e.build();
    } catch (SdkException ex) {
      throw new PoolProviderException(
          "cannot reach Auto Scaling group "
              + group
              + where
              + ": "
              + ex.getMessage()
              + (spec.getRegion().isBlank()
                  ? " (set aws_asg.region, or AWS_REGION on the control worker)"
                  : ""),
          false,
          ex);
    }
  }

  @Override
  public PoolInstances describe() {
    List<AutoScalingGroup> found =
        call(
            "DescribeAutoScalingGroups",
            () ->
                autoScaling
                    .describeAutoScalingGroups(r -> r.autoScalingGroupNames(group))
                    .autoScalingGroups());
    if (found.isEmpty()) {
      throw new PoolProviderException(
          "Auto Scaling group " + group + " does not exist" + where, false, null);
    }
    AutoScalingGroup g = found.get(0);
    Map<String, software.amazon.awssdk.services.ec2.model.Instance> details = new HashMap<>();
    List<String> ids = g.instances().stream().map(Instance::instanceId).toList();
    if (!ids.isEmpty()) {
      // a filter, not InstanceIds: an instance the group just terminated is not an error
      call(
              "DescribeInstances",
              () ->
                  ec2.describeInstancesPaginator(
                          r -> r.filters(Filter.builder().name("instance-id").values(ids).build()))
                      .reservations())
          .forEach(r -> r.instances().forEach(i -> details.put(i.instanceId(), i)));
    }
    PoolInstances.Builder out =
        PoolInstances.newBuilder()
            .setDesiredCapacity(g.desiredCapacity())
            .setMinSize(g.minSize())
            .setMaxSize(g.maxSize());
    for (Instance i : g.instances()) {
      var ec2Instance = details.get(i.instanceId());
      out.addInstances(
          PoolInstance.newBuilder()
              .setInstanceId(i.instanceId())
              .setLifecycleState(i.lifecycleStateAsString())
              .setProtectedFromScaleIn(Boolean.TRUE.equals(i.protectedFromScaleIn()))
              .setHealthStatus(nullToEmpty(i.healthStatus()))
              .setInstanceType(nullToEmpty(i.instanceType()))
              .setPrivateIp(ec2Instance == null ? "" : nullToEmpty(ec2Instance.privateIpAddress()))
              .setPrivateDnsName(
                  ec2Instance == null ? "" : nullToEmpty(ec2Instance.privateDnsName())));
    }
    Instant since = Instant.now().minus(RECENT);
    for (Activity a :
        call(
            "DescribeScalingActivities",
            () ->
                autoScaling
                    .describeScalingActivities(r -> r.autoScalingGroupName(group).maxRecords(20))
                    .activities())) {
      if (a.statusCode() == ScalingActivityStatusCode.FAILED
          && a.startTime() != null
          && a.startTime().isAfter(since)) {
        out.addLaunchFailures(
            nullToEmpty(a.description())
                + ": "
                + nullToEmpty(a.statusMessage())
                + " ("
                + a.startTime()
                + ")");
      }
    }
    return out.build();
  }

  @Override
  public void setDesired(int desired) {
    call(
        "SetDesiredCapacity " + desired,
        () ->
            autoScaling.setDesiredCapacity(
                r -> r.autoScalingGroupName(group).desiredCapacity(desired).honorCooldown(false)));
  }

  @Override
  public void protect(List<String> instanceIds, boolean protectedFromScaleIn) {
    for (int from = 0; from < instanceIds.size(); from += PROTECTION_BATCH) {
      List<String> batch =
          instanceIds.subList(from, Math.min(instanceIds.size(), from + PROTECTION_BATCH));
      call(
          "SetInstanceProtection " + protectedFromScaleIn + " " + batch,
          () ->
              autoScaling.setInstanceProtection(
                  r ->
                      r.autoScalingGroupName(group)
                          .instanceIds(batch)
                          .protectedFromScaleIn(protectedFromScaleIn)));
    }
  }

  @Override
  public void close() {
    autoScaling.close();
    ec2.close();
  }

  /**
   * Runs one API call; its failure becomes the provider's reason, retryable when AWS says it may
   * pass.
   */
  private <T> T call(String action, Supplier<T> request) {
    try {
      return request.get();
    } catch (AwsServiceException e) {
      boolean retryable = e.isThrottlingException() || e.statusCode() >= 500;
      String reason =
          e.awsErrorDetails() == null
              ? e.getMessage()
              : e.awsErrorDetails().errorCode() + ": " + e.awsErrorDetails().errorMessage();
      throw new PoolProviderException(
          action
              + " on Auto Scaling group "
              + group
              + where
              + " failed: "
              + reason
              + " (HTTP "
              + e.statusCode()
              + ")",
          retryable,
          e);
    } catch (SdkException e) {
      throw new PoolProviderException(
          action + " on Auto Scaling group " + group + where + " failed: " + e.getMessage(),
          true,
          e);
    }
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
