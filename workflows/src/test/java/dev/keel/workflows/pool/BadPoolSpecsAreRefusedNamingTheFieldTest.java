package dev.keel.workflows.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.v1.AwsAutoScalingGroup;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.TofuApply;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PoolSpecs#validate}: each bad spec gives one problem at its field path, in words a user
 * can act on.
 */
class BadPoolSpecsAreRefusedNamingTheFieldTest {
  private static final PoolSpec GOOD =
      PoolSpec.newBuilder()
          .setName("gpu")
          .setSlotsPerInstance(1)
          .setMaxInstances(4)
          .setAwsAsg(
              AwsAutoScalingGroup.newBuilder()
                  .setAutoScalingGroupName("keel-gpu")
                  .setRegion("eu-west-1"))
          .build();

  static Stream<Arguments> badSpecs() {
    return Stream.of(
        bad(
            "max_instances smaller than the largest gang",
            b -> b.setMaxInstances(1).setMaxSlotsPerTrial(2),
            "max_instances: 1 is smaller than the largest gang, 2 slots_per_trial / 1 slots_per_instance = 2 instances"),
        bad(
            "a gang rounded up to whole instances",
            b -> b.setSlotsPerInstance(4).setMaxInstances(2).setMaxSlotsPerTrial(9),
            "max_instances: 2 is smaller than the largest gang, 9 slots_per_trial / 4 slots_per_instance = 3 instances"),
        bad(
            "no name",
            b -> b.clearName(),
            "name: required: the pool whose queue keel-train-<name> the instances serve (e.g. gpu)"),
        bad(
            "a name that cannot be a task queue",
            b -> b.setName("GPU pool"),
            "name: 'GPU pool' is not a pool name (lower case letters, digits, - and _; at most 63 characters)"),
        bad(
            "negative slots",
            b -> b.setSlotsPerInstance(-2),
            "slots_per_instance: must be at least 1, got -2"),
        bad(
            "max below min",
            b -> b.setMinInstances(3).setMaxInstances(2),
            "max_instances: 2 is smaller than min_instances 3"),
        bad("max of zero", b -> b.setMaxInstances(0), "max_instances: must be at least 1, got 0"),
        bad(
            "a duration in words",
            b -> b.setMaxIdlePeriod("5 minutes"),
            "max_idle_period: '5 minutes' is not a duration (write e.g. 90s, 5m, 1h30m)"),
        bad(
            "a poll interval under a second",
            b -> b.setPollInterval("200ms"),
            "poll_interval: 200ms is too short (at least 1s)"),
        bad(
            "idle shorter than the poll",
            b -> b.setMaxIdlePeriod("10s").setPollInterval("30s"),
            "max_idle_period: 10s is shorter than poll_interval 30s: the provisioner would not see an instance idle before removing it"),
        bad(
            "back-off maximum under its start",
            b -> b.setLaunchErrorBackoff("5m").setMaxLaunchErrorBackoff("1m"),
            "max_launch_error_backoff: 1m is shorter than launch_error_backoff 5m"),
        bad(
            "no actuator",
            b -> b.clearAwsAsg(),
            "<root>: set one of aws_asg | tofu: how the pool's desired instance count changes (the Auto Scaling API, or tofu"
                + " apply -var desired_capacity=N)"),
        bad(
            "a group without a name",
            b -> b.setAwsAsg(AwsAutoScalingGroup.newBuilder().setRegion("eu-west-1")),
            "aws_asg.auto_scaling_group_name: required"),
        bad(
            "an endpoint that is no URL",
            b -> b.setAwsAsg(GOOD.getAwsAsg().toBuilder().setEndpointOverride("localhost:5000")),
            "aws_asg.endpoint_override: 'localhost:5000' is not an http(s):// URL"),
        bad(
            "tofu without a group to read instances from",
            b -> b.setTofu(TofuApply.newBuilder().setWorkingDir("/srv/pool")),
            "tofu.aws_asg: required: the Auto Scaling group the configuration manages, through which the provisioner reads the"
                + " instances and protects busy ones"),
        bad(
            "tofu extra vars that set the desired count",
            b ->
                b.setTofu(
                    TofuApply.newBuilder()
                        .setWorkingDir("/srv/pool")
                        .putExtraVars("desired_capacity", "3")
                        .setAwsAsg(GOOD.getAwsAsg())),
            "tofu.extra_vars.desired_capacity: is the desired count's variable (tofu.var_name): the provisioner sets it"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSpecs")
  void isRefused(String what, PoolSpec spec, String problem) {
    assertEquals(
        List.of(problem),
        PoolSpecs.validate(spec).stream().map(ConfigProblem::toString).toList(),
        what);
  }

  @Test
  void aSpecWithOnlyNameGroupAndMaxTakesDeterminedsDefaults() {
    assertEquals(List.of(), PoolSpecs.validate(GOOD));
    PoolSpec full = PoolSpecs.withDefaults(GOOD);
    assertEquals(
        List.of("20m", "20m", "30s", "10m", "30s"),
        List.of(
            full.getMaxIdlePeriod(),
            full.getMaxStartingPeriod(),
            full.getLaunchErrorBackoff(),
            full.getMaxLaunchErrorBackoff(),
            full.getPollInterval()));
    assertEquals(0, full.getMinInstances());
    assertEquals(
        5, PoolSpecs.withDefaults(GOOD.toBuilder().clearMaxInstances().build()).getMaxInstances());
  }

  @Test
  void durationsReadAndPrintAsWritten() {
    assertEquals(
        List.of(90_000L, 300_000L, 5_400_000L, 500L),
        Stream.of("90s", "5m", "1h30m", "500ms")
            .map(d -> PoolDurations.parseMillis(d).orElseThrow())
            .toList());
    assertEquals(
        List.of("1m30s", "5m", "1h30m", "500ms", "2h1s"),
        Stream.of(90_000L, 300_000L, 5_400_000L, 500L, 7_201_000L)
            .map(PoolDurations::format)
            .toList());
    assertEquals(OptionalLong.empty(), PoolDurations.parseMillis("5 minutes"));
  }

  private static Arguments bad(
      String what, UnaryOperator<PoolSpec.Builder> change, String problem) {
    return Arguments.of(what, change.apply(GOOD.toBuilder()).build(), problem);
  }
}
