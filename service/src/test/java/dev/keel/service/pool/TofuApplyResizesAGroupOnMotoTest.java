package dev.keel.service.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.AwsAutoScalingGroup;
import dev.keel.api.v1.PoolInstance;
import dev.keel.api.v1.PoolInstances;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The card's way: {@link TofuApplyActuator} runs {@code .tools/tofu apply -var desired_capacity=N}
 * on a configuration whose AWS provider (3.39.0, from the local mirror {@code .tools/tofu.tfrc}
 * names) manages a launch template and an Auto Scaling group in moto; the provisioner then reads
 * the group's instances and protects one through the Auto Scaling API. Needs OpenTofu, the provider
 * mirror and moto.
 */
@Tag("pool-tofu-moto")
class TofuApplyResizesAGroupOnMotoTest {

  @Test
  void tofuApplySetsTheGroupsDesiredCountAndTheApiSeesItsInstances() throws Exception {
    Path config = TofuTools.home().resolve(".tools/tofu.tfrc");
    assertTrue(
        Files.isRegularFile(config),
        config
            + " (the provider mirror's CLI config) is missing: infra/terraform/tools/install.sh writes it");
    String endpoint = MotoGroups.endpoint().toString();
    AwsAutoScalingGroup group =
        AwsAutoScalingGroup.newBuilder()
            .setAutoScalingGroupName("keel-tofu-pool")
            .setRegion(MotoGroups.REGION)
            .setEndpointOverride(endpoint)
            .build();
    Path dir = TofuTools.copy("tofu-asg");
    try (TofuApplyActuator actuator =
        new TofuApplyActuator(
            TofuTools.spec(dir, group)
                .putExtraVars("endpoint", endpoint)
                .putExtraVars("group", "keel-tofu-pool")
                .build(),
            new AutoScalingActuator(group),
            Map.of("TF_CLI_CONFIG_FILE", config.toString()))) {
      actuator.setDesired(2);
      assertEquals(2, MotoGroups.describe("keel-tofu-pool").desiredCapacity());
      PoolInstances two = actuator.describe();
      assertEquals(2, two.getDesiredCapacity());
      assertEquals(
          List.of("InService", "InService"),
          two.getInstancesList().stream().map(PoolInstance::getLifecycleState).toList());

      String busy = two.getInstances(0).getInstanceId();
      actuator.protect(List.of(busy), true);
      actuator.setDesired(1);
      assertEquals("1", TofuTools.output(dir, "desired_capacity"));
      assertEquals(
          List.of(busy),
          actuator.describe().getInstancesList().stream().map(PoolInstance::getInstanceId).toList(),
          "the protected instance stayed");

      PoolProviderException refused =
          assertThrows(PoolProviderException.class, () -> actuator.setDesired(9));
      assertTrue(
          refused.getMessage().contains("desired_capacity must be between 0 and 4 (max_size)."),
          refused.getMessage());
      assertEquals(1, MotoGroups.describe("keel-tofu-pool").desiredCapacity());
    }
  }
}
