package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a plan can know about reaching Temporal from the instances' subnets: a loopback address or
 * one without a port is refused by validation; a private address outside the subnets' VPC (moto's
 * default VPC, 172.31.0.0/16) and outside temporal_cidr_blocks by a precondition that reads the
 * VPC. A DNS name can only be resolved and reached at run time
 * (infra/terraform/modules/worker-pool/README.md).
 */
class PoolModulesRejectUnreachableTemporalAddressTest {
  @RegisterExtension static final MotoServer moto = new MotoServer();

  @Test
  void aPrivateAddressOutsideTheVpcFailsThePlanOfEitherPool() {
    for (String module : new String[] {"modules/gpu-pool", "modules/cpu-pool"}) {
      Tool.Result plan = plan(module, "10.9.0.5:7233", Map.of());
      assertEquals(1, plan.exitCode(), plan::output);
      assertTrue(
          plan.oneLine()
              .contains(
                  "Temporal address 10.9.0.5:7233 is unreachable from the instances' subnets: "
                      + "10.9.0.5 is outside this VPC (172.31.0.0/16) and outside cluster.temporal_cidr_blocks []"),
          plan::output);
    }
  }

  @Test
  void thePeeredNetworkNamedInTemporalCidrBlocksMakesItReachable() {
    Map<String, Object> cluster = new HashMap<>(Pools.cluster(moto, "10.9.0.5:7233"));
    cluster.put("temporal_cidr_blocks", Pools.list("10.9.0.0/16"));
    assertEquals(
        2, plan("modules/gpu-pool", "10.9.0.5:7233", Map.of("cluster", cluster)).exitCode());
    assertEquals(
        2,
        plan("modules/gpu-pool", "172.31.40.10:7233", Map.of()).exitCode(),
        "an address in the VPC");
  }

  @Test
  void loopbackAndPortlessAddressesFailValidation() {
    Tool.Result loopback = plan("modules/gpu-pool", "localhost:7233", Map.of());
    assertEquals(1, loopback.exitCode(), loopback::output);
    assertTrue(
        loopback
            .oneLine()
            .contains(
                "names a loopback or link-local address: no instance can reach a Temporal frontend there"),
        loopback::output);
    Tool.Result portless = plan("modules/cpu-pool", "temporal.internal", Map.of());
    assertEquals(1, portless.exitCode(), portless::output);
    assertTrue(
        portless.oneLine().contains("cluster.temporal_address must be host:port"),
        portless::output);
  }

  private static Tool.Result plan(String module, String temporalAddress, Map<String, ?> more) {
    Map<String, Object> vars = new HashMap<>(more);
    vars.putIfAbsent("max_instances", 2);
    TofuModule pool =
        TofuModule.copyOf(module).against(moto).vars(Pools.vars(moto, temporalAddress, vars));
    pool.init();
    return pool.plan();
  }
}
