package dev.keel.workflows.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.v1.AwsAutoScalingGroup;
import dev.keel.api.v1.PoolGang;
import dev.keel.api.v1.PoolInstanceState;
import dev.keel.api.v1.PoolInstanceState.Phase;
import dev.keel.api.v1.PoolSpec;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link PoolScaling#decide} on a table: one row per behaviour, named by it. */
class PoolScalingDecidesFromGangsAndIdleInstancesTest {
  private static final long NOW = 1_800_000_000_000L;
  private static final long MINUTE = 60_000L;

  /** A row: the pool, what it sees, and what the decision must be. */
  record Row(
      PoolSpec spec,
      List<PoolGang> gangs,
      List<PoolInstanceState> instances,
      int currentDesired,
      PoolBackoff backoff,
      int desired,
      List<String> protect,
      List<String> unprotect,
      boolean held,
      String reason) {
    @Override
    public String toString() {
      return reason;
    }
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        row(
            "a gang of 2 ranks on 1-slot instances asks for 2 instances",
            spec(1, 0, 4),
            List.of(gang("e/trial-1", 2, 0)),
            List.of(),
            0,
            PoolBackoff.NONE,
            2,
            List.of(),
            List.of(),
            false,
            "1 queued gang needs 2 more instances (gang of 2 slots; 2 slots in all on 1-slot instances = 2): desired 0 → 2"),
        row(
            "ranks of different gangs share 2-slot instances: 3 slots need 2 instances",
            spec(2, 0, 4),
            List.of(gang("e/trial-1", 2, 0), gang("e/trial-2", 1, 0)),
            List.of(),
            0,
            PoolBackoff.NONE,
            2,
            List.of(),
            List.of(),
            false,
            "2 queued gangs need 2 more instances (gangs of 2 and 1 slots; 3 slots in all on 2-slot instances = 2): desired 0 → 2"),
        row(
            "a running gang keeps its instances and a queued one adds only what is missing",
            spec(1, 0, 4),
            List.of(gang("e/trial-1", 2, 2, "10.0.0.1", "10.0.0.2"), gang("e/trial-2", 1, 0)),
            List.of(busy("i-1", true), busy("i-2", true)),
            2,
            PoolBackoff.NONE,
            3,
            List.of(),
            List.of(),
            false,
            "1 queued gang needs 1 more instance (gang of 1 slot; 3 slots in all on 1-slot instances = 3): desired 2 → 3"),
        row(
            "scale-out stops at max_instances",
            spec(1, 0, 3),
            List.of(gang("e/trial-1", 2, 0), gang("e/trial-2", 2, 0)),
            List.of(),
            0,
            PoolBackoff.NONE,
            3,
            List.of(),
            List.of(),
            false,
            "2 queued gangs need 3 more instances (gangs of 2 and 2 slots; 4 slots in all on 1-slot instances = 4),"
                + " capped at max_instances 3: desired 0 → 3"),
        row(
            "a gang larger than the whole pool is left out and named",
            spec(1, 0, 2),
            List.of(gang("e/trial-1", 4, 0)),
            List.of(),
            0,
            PoolBackoff.NONE,
            0,
            List.of(),
            List.of(),
            false,
            "No demand: desired 0 fits; e/trial-1 needs 4 slots but the pool holds at most 2 (max_instances 2 × 1 slot):"
                + " it can never start here"),
        row(
            "min_instances raises an empty pool without demand",
            spec(1, 2, 4),
            List.of(),
            List.of(),
            0,
            PoolBackoff.NONE,
            2,
            List.of(),
            List.of(),
            false,
            "min_instances 2: 2 more instances: desired 0 → 2"),
        row(
            "min_instances keeps an instance idle for an hour",
            spec(1, 1, 4),
            List.of(),
            List.of(idle("i-1", 60, false)),
            1,
            PoolBackoff.NONE,
            1,
            List.of(),
            List.of(),
            false,
            "No demand, min_instances 1: desired 1 fits"),
        row(
            "an instance idle longer than max_idle_period is scaled in",
            spec(1, 0, 4),
            List.of(),
            List.of(idle("i-123", 6, false)),
            1,
            PoolBackoff.NONE,
            0,
            List.of(),
            List.of(),
            false,
            "instance i-123 idle for 6m > max_idle_period 5m: scale in (1 instance more than needed (no demand)), desired 1 → 0"),
        row(
            "an instance idle less than max_idle_period stays",
            spec(1, 0, 4),
            List.of(),
            List.of(idle("i-1", 2, false)),
            1,
            PoolBackoff.NONE,
            1,
            List.of(),
            List.of(),
            false,
            "1 instance more than needed (no demand), but i-1 has been idle only 2m of max_idle_period 5m: desired stays 1"),
        row(
            "scale-in lowers desired only by the long-idle instances, never by a busy one, which it protects",
            spec(1, 0, 4),
            List.of(gang("e/trial-1", 1, 1, "10.0.0.1")),
            List.of(busy("i-1", false), idle("i-2", 10, false), idle("i-3", 1, false)),
            3,
            PoolBackoff.NONE,
            2,
            List.of("i-1"),
            List.of(),
            false,
            "instance i-2 idle for 10m > max_idle_period 5m: scale in (2 instances more than needed (1 gang, 1 slot = 1 instance)),"
                + " desired 3 → 2; protect i-1 (running ranks)"),
        row(
            "busy instances are protected and idle ones released while the count stays",
            spec(1, 0, 4),
            List.of(gang("e/trial-1", 1, 1, "10.0.0.1")),
            List.of(busy("i-1", false), idle("i-2", 1, true)),
            2,
            PoolBackoff.NONE,
            2,
            List.of("i-1"),
            List.of("i-2"),
            false,
            "1 instance more than needed (1 gang, 1 slot = 1 instance), but i-2 has been idle only 1m of max_idle_period 5m:"
                + " desired stays 2; protect i-1 (running ranks); release i-2 (no rank)"),
        row(
            "the launch-error back-off holds a scale-out and says why",
            spec(1, 0, 4),
            List.of(gang("e/trial-1", 1, 0)),
            List.of(),
            0,
            new PoolBackoff(
                2,
                NOW + MINUTE,
                "InvalidInstanceType.NotFound: The instance type 'p9.mega' does not exist"),
            0,
            List.of(),
            List.of(),
            true,
            "backing off for 1m (until 2027-01-15T08:01:00Z) after 2 failures, the last: InvalidInstanceType.NotFound: The instance"
                + " type 'p9.mega' does not exist; not applied: 1 queued gang needs 1 more instance (gang of 1 slot; 1 slot in all on"
                + " 1-slot instances = 1): desired 0 → 1"),
        row(
            "after the back-off the scale-out goes ahead",
            spec(1, 0, 4),
            List.of(gang("e/trial-1", 1, 0)),
            List.of(),
            0,
            new PoolBackoff(2, NOW - 1, "refused"),
            1,
            List.of(),
            List.of(),
            false,
            "1 queued gang needs 1 more instance (gang of 1 slot; 1 slot in all on 1-slot instances = 1): desired 0 → 1"),
        row(
            "an instance still starting after max_starting_period counts as failed and is given up first",
            spec(1, 0, 4),
            List.of(),
            List.of(failed("i-9", 25)),
            1,
            PoolBackoff.NONE,
            0,
            List.of(),
            List.of(),
            false,
            "1 instance failed to start: scale in (1 instance more than needed (no demand)), desired 1 → 0;"
                + " instance i-9 still starting after 25m > max_starting_period 20m: counted as a failed launch"),
        row(
            "instances asked for but never listed are given up when the demand is gone",
            spec(1, 0, 4),
            List.of(),
            List.of(),
            2,
            PoolBackoff.NONE,
            0,
            List.of(),
            List.of(),
            false,
            "2 asked for but not started: scale in (2 instances more than needed (no demand)), desired 2 → 0"),
        row(
            "starting instances count as capacity for a queued gang",
            spec(1, 0, 4),
            List.of(gang("e/trial-1", 2, 0)),
            List.of(starting("i-1", 1), starting("i-2", 1)),
            2,
            PoolBackoff.NONE,
            2,
            List.of(),
            List.of(),
            false,
            "1 gang, 2 slots = 2 instances: desired 2 fits"),
        row(
            "nothing changes when the running gangs fit the pool",
            spec(2, 0, 4),
            List.of(gang("e/trial-1", 2, 2, "10.0.0.1"), gang("e/trial-2", 2, 2, "10.0.0.2")),
            List.of(busy("i-1", true), busy("i-2", true)),
            2,
            PoolBackoff.NONE,
            2,
            List.of(),
            List.of(),
            false,
            "2 gangs, 4 slots = 2 instances: desired 2 fits"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void decides(String behaviour, Row row) {
    ScalingDecision d =
        PoolScaling.decide(
            row.spec(), row.gangs(), row.instances(), row.currentDesired(), row.backoff(), NOW);
    assertEquals(row.desired(), d.desired(), behaviour + ": " + d.reason());
    assertEquals(row.protect(), d.protect(), behaviour);
    assertEquals(row.unprotect(), d.unprotect(), behaviour);
    assertEquals(row.held(), d.heldByBackoff(), behaviour);
    assertEquals(row.reason(), d.reason(), behaviour);
  }

  @Test
  void theBackoffDoublesPerFailureUpToItsMaximum() {
    PoolSpec spec = spec(1, 0, 4);
    assertEquals(
        List.of(30_000L, 60_000L, 120_000L, 240_000L, 480_000L, 600_000L, 600_000L),
        Stream.of(1, 2, 3, 4, 5, 6, 40).map(n -> PoolBackoff.delayMillis(spec, n)).toList());
  }

  private static Arguments row(
      String behaviour,
      PoolSpec spec,
      List<PoolGang> gangs,
      List<PoolInstanceState> instances,
      int current,
      PoolBackoff backoff,
      int desired,
      List<String> protect,
      List<String> unprotect,
      boolean held,
      String reason) {
    return Arguments.of(
        behaviour,
        new Row(
            spec, gangs, instances, current, backoff, desired, protect, unprotect, held, reason));
  }

  static PoolSpec spec(int slotsPerInstance, int min, int max) {
    return PoolSpecs.withDefaults(
        PoolSpec.newBuilder()
            .setName("gpu")
            .setSlotsPerInstance(slotsPerInstance)
            .setMinInstances(min)
            .setMaxInstances(max)
            .setMaxIdlePeriod("5m")
            .setAwsAsg(AwsAutoScalingGroup.newBuilder().setAutoScalingGroupName("keel-gpu"))
            .build());
  }

  static PoolGang gang(String trial, int slots, int started, String... hosts) {
    return PoolGang.newBuilder()
        .setTrialWorkflowId(trial)
        .setSlots(slots)
        .setRanksStarted(started)
        .addAllHosts(List.of(hosts))
        .build();
  }

  private static PoolInstanceState instance(
      String id, Phase phase, long minutesAgo, boolean protectedFromScaleIn) {
    return PoolInstanceState.newBuilder()
        .setInstanceId(id)
        .setPhase(phase)
        .setSinceMillis(NOW - minutesAgo * MINUTE)
        .setProtectedFromScaleIn(protectedFromScaleIn)
        .build();
  }

  private static PoolInstanceState busy(String id, boolean protectedFromScaleIn) {
    return instance(id, Phase.BUSY, 3, protectedFromScaleIn);
  }

  private static PoolInstanceState idle(String id, long minutes, boolean protectedFromScaleIn) {
    return instance(id, Phase.IDLE, minutes, protectedFromScaleIn);
  }

  private static PoolInstanceState starting(String id, long minutes) {
    return instance(id, Phase.STARTING, minutes, false);
  }

  private static PoolInstanceState failed(String id, long minutes) {
    return instance(id, Phase.FAILED, minutes, false);
  }
}
