package dev.keel.workflows.pool;

import static dev.keel.workflows.pool.PoolScalingDecidesFromGangsAndIdleInstancesTest.gang;
import static dev.keel.workflows.pool.PoolScalingDecidesFromGangsAndIdleInstancesTest.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.PoolCarry;
import dev.keel.api.v1.PoolDemand;
import dev.keel.api.v1.PoolGang;
import dev.keel.api.v1.PoolInstance;
import dev.keel.api.v1.PoolInstanceState;
import dev.keel.api.v1.PoolInstanceState.Phase;
import dev.keel.api.v1.PoolInstances;
import dev.keel.api.v1.PoolSpec;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link PoolInstanceTracker} and {@link InstanceHosts}: which instance runs which rank, and since
 * when it is idle or starting.
 */
class PoolInstanceTrackerTellsBusyIdleAndFailedInstancesTest {
  private static final long T0 = 1_800_000_000_000L;
  private static final long MINUTE = 60_000L;
  private static final PoolSpec SPEC = spec(1, 0, 4);

  @ParameterizedTest(name = "{0} runs on the instance: {1}")
  @CsvSource({
    "10.0.1.23, true",
    "4242@ip-10-0-1-23, true",
    "4242@ip-10-0-1-23.ec2.internal, true",
    "ip-10-0-1-23-slot-1, true",
    "IP-10-0-1-23, true",
    "i-0abc, true",
    "10.0.1.24, false",
    "4242@ip-10-0-1-2, false",
    "4242@buildhost, false"
  })
  void ranksNameTheirInstanceByAddressHostnameOrSlotIdentity(String rank, boolean expected) {
    PoolInstance i =
        PoolInstance.newBuilder()
            .setInstanceId("i-0abc")
            .setPrivateIp("10.0.1.23")
            .setPrivateDnsName("ip-10-0-1-23.ec2.internal")
            .setLifecycleState("InService")
            .build();
    assertEquals(expected, InstanceHosts.runsOn(rank, i));
  }

  @Test
  void anInstanceRunningARankIsBusyAndTheOtherIdleSinceItCameIntoService() {
    PoolInstanceTracker.Look look =
        PoolInstanceTracker.look(
            SPEC,
            group(2, inService("i-1", "10.0.0.1"), inService("i-2", "10.0.0.2")),
            demand(List.of(gang("e/trial-1", 1, 1, "7@ip-10-0-0-1"))),
            PoolCarry.getDefaultInstance(),
            T0);
    assertEquals(
        List.of(Phase.BUSY, Phase.IDLE),
        look.instances().stream().map(PoolInstanceState::getPhase).toList());
    assertEquals(List.of("e/trial-1"), look.instances().get(0).getGangsList());
    assertEquals(T0, look.instances().get(1).getSinceMillis());
    assertTrue(look.launchFailures().isEmpty());
  }

  @Test
  void anInstanceIsIdleSinceItsLastRankNotSinceItStarted() {
    PoolCarry.Builder carry = PoolCarry.newBuilder();
    PoolInstances group = group(1, inService("i-1", "10.0.0.1"));
    carry.putAllInstances(
        PoolInstanceTracker.look(SPEC, group, demand(List.of()), carry.build(), T0).memory());
    carry.putAllInstances(
        PoolInstanceTracker.look(
                SPEC,
                group,
                demand(List.of(gang("e/trial-1", 1, 1, "10.0.0.1"))),
                carry.build(),
                T0 + 10 * MINUTE)
            .memory());
    PoolInstanceState later =
        PoolInstanceTracker.look(SPEC, group, demand(List.of()), carry.build(), T0 + 16 * MINUTE)
            .instances()
            .get(0);
    assertEquals(Phase.IDLE, later.getPhase());
    assertEquals(T0 + 10 * MINUTE, later.getSinceMillis());
  }

  @Test
  void anInstanceStillPendingAfterMaxStartingPeriodFailsOnceWithTheReason() {
    PoolInstances group =
        group(
            1, PoolInstance.newBuilder().setInstanceId("i-1").setLifecycleState("Pending").build());
    PoolCarry.Builder carry = PoolCarry.newBuilder();
    PoolInstanceTracker.Look first =
        PoolInstanceTracker.look(SPEC, group, demand(List.of()), carry.build(), T0);
    assertEquals(Phase.STARTING, first.instances().get(0).getPhase());
    carry.putAllInstances(first.memory());
    PoolInstanceTracker.Look late =
        PoolInstanceTracker.look(SPEC, group, demand(List.of()), carry.build(), T0 + 21 * MINUTE);
    assertEquals(Phase.FAILED, late.instances().get(0).getPhase());
    assertEquals(
        List.of("instance i-1 still starting after 21m > max_starting_period 20m"),
        late.launchFailures());
    carry.putAllInstances(late.memory());
    PoolInstanceTracker.Look again =
        PoolInstanceTracker.look(SPEC, group, demand(List.of()), carry.build(), T0 + 22 * MINUTE);
    assertEquals(Phase.FAILED, again.instances().get(0).getPhase());
    assertTrue(again.launchFailures().isEmpty(), "a failed launch counts once");
  }

  @Test
  void aGroupShortOfItsDesiredCountPastMaxStartingPeriodIsAFailedLaunchWithTheProvidersReason() {
    PoolInstances group =
        group(2, inService("i-1", "10.0.0.1")).toBuilder()
            .addLaunchFailures("Launching a new EC2 instance failed: InsufficientInstanceCapacity")
            .build();
    PoolInstanceTracker.Look first =
        PoolInstanceTracker.look(
            SPEC, group, demand(List.of()), PoolCarry.getDefaultInstance(), T0);
    assertEquals(T0, first.shortSinceMillis());
    assertTrue(first.launchFailures().isEmpty());
    PoolCarry carry = PoolCarry.newBuilder().setShortSinceMillis(first.shortSinceMillis()).build();
    PoolInstanceTracker.Look late =
        PoolInstanceTracker.look(SPEC, group, demand(List.of()), carry, T0 + 25 * MINUTE);
    assertEquals(
        List.of(
            "the group was asked for 2 instances but has had only 1 for 25m > max_starting_period 20m;"
                + " the provider says: Launching a new EC2 instance failed: InsufficientInstanceCapacity"),
        late.launchFailures());
    assertTrue(late.shortReported());
    PoolInstanceTracker.Look whole =
        PoolInstanceTracker.look(
            SPEC,
            group(1, inService("i-1", "10.0.0.1")),
            demand(List.of()),
            carry.toBuilder().setShortReported(true).build(),
            T0 + 26 * MINUTE);
    assertEquals(0, whole.shortSinceMillis());
    assertFalse(whole.shortReported());
  }

  @Test
  void ranksOnNoInstanceOfTheGroupAreNoted() {
    PoolInstanceTracker.Look look =
        PoolInstanceTracker.look(
            SPEC,
            group(1, inService("i-1", "10.0.0.1")),
            demand(List.of(gang("e/trial-7", 1, 1, "99@laptop"))),
            PoolCarry.getDefaultInstance(),
            T0);
    assertEquals(List.of("e/trial-7 runs on no instance of the group (99@laptop)"), look.notes());
  }

  @Test
  void anInstanceRunningAPipelinesFinalTrainingIsBusyThoughNotDemand() {
    PoolDemand demand =
        PoolDemand.newBuilder().addOtherSteps(gang("pipeline-p", 1, 1, "7@ip-10-0-0-2")).build();
    PoolInstanceTracker.Look look =
        PoolInstanceTracker.look(
            SPEC,
            group(2, inService("i-1", "10.0.0.1"), inService("i-2", "10.0.0.2")),
            demand,
            PoolCarry.getDefaultInstance(),
            T0);
    assertEquals(
        List.of(Phase.IDLE, Phase.BUSY),
        look.instances().stream().map(PoolInstanceState::getPhase).toList());
    assertEquals(List.of("pipeline-p"), look.instances().get(1).getGangsList());
    ScalingDecision d =
        PoolScaling.decide(
            SPEC, demand.getGangsList(), look.instances(), 2, PoolBackoff.NONE, T0 + 60 * MINUTE);
    assertEquals(List.of("i-2"), d.protect());
    assertEquals(
        1,
        d.desired(),
        "an hour later only the idle instance goes; the one training stays, protected");
  }

  private static PoolDemand demand(List<PoolGang> gangs) {
    return PoolDemand.newBuilder().addAllGangs(gangs).build();
  }

  private static PoolInstances group(int desired, PoolInstance... instances) {
    return PoolInstances.newBuilder()
        .setDesiredCapacity(desired)
        .addAllInstances(List.of(instances))
        .build();
  }

  private static PoolInstance inService(String id, String ip) {
    return PoolInstance.newBuilder()
        .setInstanceId(id)
        .setLifecycleState("InService")
        .setPrivateIp(ip)
        .setPrivateDnsName("ip-" + ip.replace('.', '-') + ".ec2.internal")
        .build();
  }
}
