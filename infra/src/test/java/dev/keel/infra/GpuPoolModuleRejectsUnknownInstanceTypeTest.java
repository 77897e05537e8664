package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * --slots is the instance type's GPU count, so a GPU pool accepts only instance types whose count
 * it knows, and fallbacks with the same count; the plan names the type it refuses.
 */
class GpuPoolModuleRejectsUnknownInstanceTypeTest {
  @RegisterExtension static final MotoServer moto = new MotoServer();

  @Test
  void planFailsNamingTheUnknownTypeAndTheKnownFamilies() {
    Tool.Result plan = plan(List.of("g5.xlarge", "g9.mega"));
    assertEquals(1, plan.exitCode(), plan::output);
    String message = plan.oneLine();
    assertTrue(
        message.contains(
            "Unknown GPU instance type in [g5.xlarge, g9.mega]: g9.mega. Known: the g4dn, g5, g6, g6e, p3"),
        plan::output);
    assertTrue(
        !message.contains("largest gang"), () -> "a second, misleading error: " + plan.output());
  }

  @Test
  void planFailsForACpuInstanceType() {
    Tool.Result plan = plan(List.of("m6i.xlarge"));
    assertEquals(1, plan.exitCode(), plan::output);
    assertTrue(
        plan.oneLine().contains("Unknown GPU instance type in [m6i.xlarge]: m6i.xlarge."),
        plan::output);
  }

  @Test
  void planFailsForFallbacksWithAnotherGpuCount() {
    Tool.Result plan = plan(List.of("g5.12xlarge", "g5.xlarge"));
    assertEquals(1, plan.exitCode(), plan::output);
    assertTrue(
        plan.oneLine()
            .contains(
                "All instance types of a pool need the same number of GPUs (it is the worker's --slots): "
                    + "g5.12xlarge has 4, g5.xlarge has 1."),
        plan::output);
  }

  private static Tool.Result plan(List<String> instanceTypes) {
    TofuModule pool =
        TofuModule.copyOf("modules/gpu-pool")
            .against(moto)
            .vars(
                Pools.vars(
                    moto,
                    "temporal.internal:7233",
                    Map.of("instance_types", instanceTypes, "max_instances", 2)));
    pool.init();
    return pool.plan();
  }
}
