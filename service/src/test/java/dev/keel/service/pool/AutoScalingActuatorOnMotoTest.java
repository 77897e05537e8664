package dev.keel.service.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.AwsAutoScalingGroup;
import dev.keel.api.v1.PoolInstance;
import dev.keel.api.v1.PoolInstances;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.autoscaling.model.Instance;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * {@link AutoScalingActuator} with the real AWS SDK against a moto server and groups made through
 * the SDK: desired capacity up and down, protection set and cleared (and honoured at scale-in),
 * instances described with their EC2 private addresses, and the provider's reasons for a missing
 * group and an unknown instance type.
 */
@Tag("pool-moto")
class AutoScalingActuatorOnMotoTest {

  @Test
  void setsDesiredCapacityAndDescribesTheInstancesMotoLaunchedWithTheirAddresses()
      throws Exception {
    AwsAutoScalingGroup group = MotoGroups.create("keel-actuator-describe", "t3.micro", 4);
    try (AutoScalingActuator actuator = new AutoScalingActuator(group)) {
      PoolInstances empty = actuator.describe();
      assertEquals(0, empty.getDesiredCapacity());
      assertEquals(4, empty.getMaxSize());
      assertEquals(0, empty.getInstancesCount());

      actuator.setDesired(2);
      PoolInstances two = actuator.describe();
      assertEquals(2, two.getDesiredCapacity());
      assertEquals(
          2, MotoGroups.describe("keel-actuator-describe").desiredCapacity(), "the group itself");
      assertEquals(
          List.of("InService", "InService"),
          two.getInstancesList().stream().map(PoolInstance::getLifecycleState).toList());
      Map<String, String> ips;
      try (Ec2Client ec2 = MotoGroups.ec2()) {
        ips =
            ec2.describeInstances().reservations().stream()
                .flatMap(r -> r.instances().stream())
                .collect(
                    Collectors.toMap(
                        software.amazon.awssdk.services.ec2.model.Instance::instanceId,
                        software.amazon.awssdk.services.ec2.model.Instance::privateIpAddress));
      }
      for (PoolInstance i : two.getInstancesList()) {
        assertEquals(
            ips.get(i.getInstanceId()),
            i.getPrivateIp(),
            "EC2's private address of " + i.getInstanceId());
        assertTrue(
            i.getPrivateDnsName().startsWith("ip-" + i.getPrivateIp().replace('.', '-')),
            i.getPrivateDnsName());
        assertEquals("t3.micro", i.getInstanceType());
        assertFalse(i.getProtectedFromScaleIn());
      }
    }
  }

  @Test
  void protectionKeepsTheBusyInstanceThroughAScaleInAndIsCleared() throws Exception {
    AwsAutoScalingGroup group = MotoGroups.create("keel-actuator-protect", "t3.micro", 4);
    try (AutoScalingActuator actuator = new AutoScalingActuator(group)) {
      actuator.setDesired(3);
      List<String> ids =
          actuator.describe().getInstancesList().stream().map(PoolInstance::getInstanceId).toList();
      String busy = ids.get(1);
      actuator.protect(List.of(busy), true);
      assertEquals(List.of(busy), protectedIds(actuator.describe()));

      actuator.setDesired(1);
      PoolInstances after = actuator.describe();
      assertEquals(
          List.of(busy),
          after.getInstancesList().stream().map(PoolInstance::getInstanceId).toList(),
          "scale-in removed the unprotected instances only");
      assertEquals(
          List.of(busy),
          MotoGroups.describe("keel-actuator-protect").instances().stream()
              .filter(Instance::protectedFromScaleIn)
              .map(Instance::instanceId)
              .toList());

      actuator.protect(List.of(busy), false);
      assertEquals(List.of(), protectedIds(actuator.describe()));
    }
  }

  @Test
  void aMissingGroupIsRefusedWithoutRetries() throws Exception {
    AwsAutoScalingGroup group =
        MotoGroups.create("keel-actuator-exists", "t3.micro", 1).toBuilder()
            .setAutoScalingGroupName("keel-no-such-group")
            .build();
    try (AutoScalingActuator actuator = new AutoScalingActuator(group)) {
      PoolProviderException e = assertThrows(PoolProviderException.class, actuator::describe);
      assertEquals(
          "Auto Scaling group keel-no-such-group does not exist in us-east-1 at "
              + MotoGroups.endpoint(),
          e.getMessage());
      assertFalse(e.retryable());
    }
  }

  @Test
  void anUnknownInstanceTypeFailsTheLaunchWithTheProvidersReason() throws Exception {
    AwsAutoScalingGroup group = MotoGroups.create("keel-actuator-bad-type", "p9.mega", 2);
    try (AutoScalingActuator actuator = new AutoScalingActuator(group)) {
      PoolProviderException e =
          assertThrows(PoolProviderException.class, () -> actuator.setDesired(1));
      assertTrue(
          e.getMessage()
              .startsWith(
                  "SetDesiredCapacity 1 on Auto Scaling group keel-actuator-bad-type in us-east-1 at "),
          e.getMessage());
      assertTrue(
          e.getMessage()
              .contains(
                  "failed: InvalidInstanceType.NotFound: The instance type 'p9.mega' does not exist (HTTP 400)"),
          e.getMessage());
      assertFalse(e.retryable(), "a refused launch is not retried by the activity");
    }
  }

  private static List<String> protectedIds(PoolInstances instances) {
    return instances.getInstancesList().stream()
        .filter(PoolInstance::getProtectedFromScaleIn)
        .map(PoolInstance::getInstanceId)
        .toList();
  }
}
