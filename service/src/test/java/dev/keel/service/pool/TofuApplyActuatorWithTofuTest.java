package dev.keel.service.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.AwsAutoScalingGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link TofuApplyActuator} running the real {@code .tools/tofu} on a configuration without a cloud
 * ({@code terraform_data}): the desired count and a variable file reach the state ({@code tofu
 * output}), a value the configuration refuses comes back with tofu's own error text, and an apply
 * that outlives the timeout is stopped and reported.
 */
@Tag("pool-tofu")
class TofuApplyActuatorWithTofuTest {
  /** Never called: these tests only change the desired count. */
  private static final AwsAutoScalingGroup UNUSED_GROUP =
      AwsAutoScalingGroup.newBuilder()
          .setAutoScalingGroupName("unused")
          .setRegion("us-east-1")
          .setEndpointOverride("http://127.0.0.1:9")
          .build();

  @Test
  void appliesTheDesiredCountAndTheVariableFileIntoTheState() throws Exception {
    Path dir = TofuTools.copy("tofu-data");
    Files.writeString(dir.resolve("keel.tfvars"), "pool = \"gpu-from-file\"\n");
    try (TofuApplyActuator actuator =
        new TofuApplyActuator(
            TofuTools.spec(dir, UNUSED_GROUP).addVarFiles("keel.tfvars").build(),
            new AutoScalingActuator(UNUSED_GROUP),
            Map.of())) {
      actuator.setDesired(2);
      assertEquals("2", TofuTools.output(dir, "desired_capacity"));
      assertEquals("gpu-from-file", TofuTools.output(dir, "pool"));
      actuator.setDesired(1);
      assertEquals("1", TofuTools.output(dir, "desired_capacity"));
    }
  }

  @Test
  void aValueTheConfigurationRefusesFailsWithTofusErrorText() throws Exception {
    Path dir = TofuTools.copy("tofu-data");
    try (TofuApplyActuator actuator = actuator(dir, Map.of("pool", "gpu"), "5m")) {
      actuator.setDesired(1);
      PoolProviderException e =
          assertThrows(PoolProviderException.class, () -> actuator.setDesired(5));
      assertFalse(e.retryable());
      assertTrue(
          e.getMessage()
              .startsWith(
                  TofuTools.tofu()
                      + " apply -var desired_capacity=5 -var pool=gpu in "
                      + dir
                      + " failed (exit 1): Error: Invalid value for variable"),
          e.getMessage());
      assertTrue(
          e.getMessage()
              .contains("desired_capacity must be between 0 and 3 (the group's max_size)."),
          e.getMessage());
      assertEquals("1", TofuTools.output(dir, "desired_capacity"), "the state kept the last count");
    }
  }

  @Test
  void anApplyPastItsTimeoutIsStoppedAndReported() throws Exception {
    Path dir = TofuTools.copy("tofu-data");
    try (TofuApplyActuator actuator =
        actuator(dir, Map.of("pool", "gpu", "boot_seconds", "60"), "5s")) {
      long start = System.nanoTime();
      PoolProviderException e =
          assertThrows(PoolProviderException.class, () -> actuator.setDesired(1));
      assertTrue(
          Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofSeconds(40)) < 0,
          "stopped, not waited out");
      assertTrue(
          e.getMessage()
              .contains(
                  " did not finish within 5s (tofu.timeout) and was stopped; its state may still be locked."),
          e.getMessage());
      assertFalse(e.retryable());
    }
  }

  @Test
  void aWorkingDirectoryThatIsNotThereIsNamed() throws Exception {
    Path missing = Files.createTempDirectory("keel-tofu-gone").resolve("pool");
    try (TofuApplyActuator actuator = actuator(missing, Map.of(), "5m")) {
      PoolProviderException e =
          assertThrows(PoolProviderException.class, () -> actuator.setDesired(1));
      assertEquals(
          "tofu.working_dir " + missing + " is not a directory on this worker", e.getMessage());
    }
  }

  private static TofuApplyActuator actuator(Path dir, Map<String, String> vars, String timeout) {
    return new TofuApplyActuator(
        TofuTools.spec(dir, UNUSED_GROUP).putAllExtraVars(vars).setTimeout(timeout).build(),
        new AutoScalingActuator(UNUSED_GROUP),
        Map.of());
  }
}
