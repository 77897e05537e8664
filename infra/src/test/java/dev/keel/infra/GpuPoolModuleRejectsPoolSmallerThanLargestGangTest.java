package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A gang of N ranks needs N slots at once: a pool whose max_instances cannot hold the largest gang
 * fails its plan.
 */
class GpuPoolModuleRejectsPoolSmallerThanLargestGangTest {
  @RegisterExtension static final MotoServer moto = new MotoServer();

  @Test
  void planFailsNamingTheSlotsThePoolHoldsAndTheInstancesItNeeds() {
    TofuModule pool =
        TofuModule.copyOf("modules/gpu-pool")
            .against(moto)
            .vars(
                Pools.vars(
                    moto,
                    "temporal.internal:7233",
                    Map.of(
                        "instance_types",
                        Pools.list("g5.xlarge", "g6.xlarge"),
                        "max_instances",
                        3,
                        "largest_gang_slots",
                        8)));
    pool.init();
    Tool.Result plan = pool.plan();
    assertEquals(1, plan.exitCode(), plan::output);
    assertTrue(
        plan.oneLine()
            .contains(
                "max_instances = 3 instances of 1 GPU(s) hold 3 slots, fewer than the largest gang's 8: "
                    + "that gang could never start. Raise max_instances to at least 8 or use instance types with more GPUs."),
        plan::output);

    // the same gang fits on two 4-GPU instances
    pool.vars(
        Pools.vars(
            moto,
            "temporal.internal:7233",
            Map.of(
                "instance_types",
                Pools.list("g5.12xlarge"),
                "max_instances",
                2,
                "largest_gang_slots",
                8)));
    assertEquals(2, pool.plan().exitCode(), "a pool that holds the gang plans changes");
  }
}
