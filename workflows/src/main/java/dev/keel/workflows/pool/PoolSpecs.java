package dev.keel.workflows.pool;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.v1.AwsAutoScalingGroup;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.TofuApply;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A pool spec's rules and defaults (Determined's: 0 to 5 instances, 20 minutes idle or starting at
 * most). One entry point for the CLI, the REST API, the provisioner's start and its {@code
 * updateSpec} signal; every problem names its field. Pure: the loader that reads files is the
 * caller's.
 */
public final class PoolSpecs {
  /** What problems are about, in {@code invalid pool spec (2 problems):}. */
  public static final String SPEC = "pool spec";

  public static final int DEFAULT_SLOTS_PER_INSTANCE = 1;
  public static final int DEFAULT_MAX_INSTANCES = 5;
  public static final String DEFAULT_MAX_IDLE_PERIOD = "20m";
  public static final String DEFAULT_MAX_STARTING_PERIOD = "20m";
  public static final String DEFAULT_LAUNCH_ERROR_BACKOFF = "30s";
  public static final String DEFAULT_MAX_LAUNCH_ERROR_BACKOFF = "10m";
  public static final String DEFAULT_POLL_INTERVAL = "30s";
  public static final int DEFAULT_CONTINUE_AS_NEW_AFTER_ITERATIONS = 500;
  public static final String DEFAULT_TOFU_VAR = "desired_capacity";
  public static final String DEFAULT_TOFU_BINARY = "tofu";
  public static final String DEFAULT_TOFU_TIMEOUT = "15m";

  /** A pool name is part of a task queue and a workflow id: lower case, digits, '-' and '_'. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

  private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");
  private static final Pattern URL = Pattern.compile("https?://[^\\s/]+(/\\S*)?");
  private static final long MIN_POLL_MILLIS = 1_000;

  private PoolSpecs() {}

  /** Every unset field with its default. */
  public static PoolSpec withDefaults(PoolSpec spec) {
    PoolSpec.Builder b = spec.toBuilder();
    if (b.getSlotsPerInstance() == 0) {
      b.setSlotsPerInstance(DEFAULT_SLOTS_PER_INSTANCE);
    }
    if (!b.hasMaxInstances()) {
      b.setMaxInstances(DEFAULT_MAX_INSTANCES);
    }
    if (b.getMaxIdlePeriod().isBlank()) {
      b.setMaxIdlePeriod(DEFAULT_MAX_IDLE_PERIOD);
    }
    if (b.getMaxStartingPeriod().isBlank()) {
      b.setMaxStartingPeriod(DEFAULT_MAX_STARTING_PERIOD);
    }
    if (b.getLaunchErrorBackoff().isBlank()) {
      b.setLaunchErrorBackoff(DEFAULT_LAUNCH_ERROR_BACKOFF);
    }
    if (b.getMaxLaunchErrorBackoff().isBlank()) {
      b.setMaxLaunchErrorBackoff(DEFAULT_MAX_LAUNCH_ERROR_BACKOFF);
    }
    if (b.getPollInterval().isBlank()) {
      b.setPollInterval(DEFAULT_POLL_INTERVAL);
    }
    if (b.getContinueAsNewAfterIterations() == 0) {
      b.setContinueAsNewAfterIterations(DEFAULT_CONTINUE_AS_NEW_AFTER_ITERATIONS);
    }
    if (b.hasTofu()) {
      TofuApply.Builder t = b.getTofuBuilder();
      if (t.getVarName().isBlank()) {
        t.setVarName(DEFAULT_TOFU_VAR);
      }
      if (t.getBinary().isBlank()) {
        t.setBinary(DEFAULT_TOFU_BINARY);
      }
      if (t.getTimeout().isBlank()) {
        t.setTimeout(DEFAULT_TOFU_TIMEOUT);
      }
    }
    return b.build();
  }

  /**
   * Every problem of {@code spec} (with its defaults), each with its field path; empty when it can
   * run.
   */
  public static List<ConfigProblem> validate(PoolSpec submitted) {
    PoolSpec spec = withDefaults(submitted);
    List<ConfigProblem> problems = new ArrayList<>();
    if (spec.getName().isBlank()) {
      problems.add(
          new ConfigProblem(
              "name",
              "required: the pool whose queue keel-train-<name> the instances serve (e.g. gpu)"));
    } else if (!NAME.matcher(spec.getName()).matches()) {
      problems.add(
          new ConfigProblem(
              "name",
              "'"
                  + spec.getName()
                  + "' is not a pool name (lower case letters, digits, - and _;"
                  + " at most 63 characters)"));
    }
    int slots = spec.getSlotsPerInstance();
    if (slots < 1) {
      problems.add(new ConfigProblem("slots_per_instance", "must be at least 1, got " + slots));
    }
    int min = spec.getMinInstances();
    int max = spec.getMaxInstances();
    if (min < 0) {
      problems.add(new ConfigProblem("min_instances", "must be at least 0, got " + min));
    }
    if (max < 1) {
      problems.add(new ConfigProblem("max_instances", "must be at least 1, got " + max));
    } else if (max < min) {
      problems.add(
          new ConfigProblem("max_instances", max + " is smaller than min_instances " + min));
    }
    int gang = spec.getMaxSlotsPerTrial();
    if (gang < 0) {
      problems.add(
          new ConfigProblem("max_slots_per_trial", "must be at least 1 when set, got " + gang));
    } else if (gang > 0 && slots >= 1 && max >= 1 && (long) max * slots < gang) {
      long needed = (gang + (long) slots - 1) / slots;
      problems.add(
          new ConfigProblem(
              "max_instances",
              max
                  + " is smaller than the largest gang, "
                  + gang
                  + " slots_per_trial / "
                  + slots
                  + " slots_per_instance = "
                  + needed
                  + " instance"
                  + (needed == 1 ? "" : "s")));
    }
    long idle = duration(problems, "max_idle_period", spec.getMaxIdlePeriod(), 1);
    duration(problems, "max_starting_period", spec.getMaxStartingPeriod(), 1);
    long backoff = duration(problems, "launch_error_backoff", spec.getLaunchErrorBackoff(), 1);
    long maxBackoff =
        duration(problems, "max_launch_error_backoff", spec.getMaxLaunchErrorBackoff(), 1);
    if (backoff > 0 && maxBackoff > 0 && maxBackoff < backoff) {
      problems.add(
          new ConfigProblem(
              "max_launch_error_backoff",
              spec.getMaxLaunchErrorBackoff()
                  + " is shorter than launch_error_backoff "
                  + spec.getLaunchErrorBackoff()));
    }
    long poll = duration(problems, "poll_interval", spec.getPollInterval(), MIN_POLL_MILLIS);
    if (poll > 0 && idle > 0 && idle < poll) {
      problems.add(
          new ConfigProblem(
              "max_idle_period",
              spec.getMaxIdlePeriod()
                  + " is shorter than poll_interval "
                  + spec.getPollInterval()
                  + ": the provisioner would not see an instance idle before removing it"));
    }
    if (spec.getContinueAsNewAfterIterations() < 1) {
      problems.add(
          new ConfigProblem(
              "continue_as_new_after_iterations",
              "must be at least 1, got " + spec.getContinueAsNewAfterIterations()));
    }
    switch (spec.getActuatorCase()) {
      case AWS_ASG -> group(problems, "aws_asg", spec.getAwsAsg());
      case TOFU -> tofu(problems, spec.getTofu());
      case ACTUATOR_NOT_SET ->
          problems.add(
              new ConfigProblem(
                  "",
                  "set one of aws_asg | tofu: how the pool's desired"
                      + " instance count changes (the Auto Scaling API, or tofu apply -var desired_capacity=N)"));
    }
    return problems;
  }

  /** A spec's duration field in milliseconds (after {@link #withDefaults}; validated). */
  public static long millis(String duration) {
    return PoolDurations.parseMillis(duration)
        .orElseThrow(() -> new IllegalArgumentException("not a duration: " + duration));
  }

  /** The Auto Scaling group of either actuator. */
  public static AwsAutoScalingGroup group(PoolSpec spec) {
    return spec.hasTofu() ? spec.getTofu().getAwsAsg() : spec.getAwsAsg();
  }

  private static void tofu(List<ConfigProblem> problems, TofuApply tofu) {
    if (tofu.getWorkingDir().isBlank()) {
      problems.add(
          new ConfigProblem(
              "tofu.working_dir",
              "required: the root configuration that owns the group's desired capacity"));
    }
    if (!VARIABLE.matcher(tofu.getVarName()).matches()) {
      problems.add(
          new ConfigProblem("tofu.var_name", "'" + tofu.getVarName() + "' is not a variable name"));
    }
    for (Map.Entry<String, String> e : tofu.getExtraVarsMap().entrySet()) {
      if (!VARIABLE.matcher(e.getKey()).matches()) {
        problems.add(new ConfigProblem("tofu.extra_vars." + e.getKey(), "not a variable name"));
      } else if (e.getKey().equals(tofu.getVarName())) {
        problems.add(
            new ConfigProblem(
                "tofu.extra_vars." + e.getKey(),
                "is the desired count's variable (tofu.var_name):" + " the provisioner sets it"));
      }
    }
    for (int i = 0; i < tofu.getVarFilesCount(); i++) {
      if (tofu.getVarFiles(i).isBlank()) {
        problems.add(new ConfigProblem("tofu.var_files[" + i + "]", "empty: name a .tfvars file"));
      }
    }
    duration(problems, "tofu.timeout", tofu.getTimeout(), MIN_POLL_MILLIS);
    if (!tofu.hasAwsAsg()) {
      problems.add(
          new ConfigProblem(
              "tofu.aws_asg",
              "required: the Auto Scaling group the configuration manages, through"
                  + " which the provisioner reads the instances and protects busy ones"));
    } else {
      group(problems, "tofu.aws_asg", tofu.getAwsAsg());
    }
  }

  private static void group(List<ConfigProblem> problems, String path, AwsAutoScalingGroup group) {
    if (group.getAutoScalingGroupName().isBlank()) {
      problems.add(new ConfigProblem(path + ".auto_scaling_group_name", "required"));
    }
    String endpoint = group.getEndpointOverride();
    if (!endpoint.isBlank() && !URL.matcher(endpoint).matches()) {
      problems.add(
          new ConfigProblem(
              path + ".endpoint_override", "'" + endpoint + "' is not an http(s):// URL"));
    }
  }

  /** The field's milliseconds, or -1 after adding its problem. */
  private static long duration(
      List<ConfigProblem> problems, String path, String text, long minMillis) {
    var parsed = PoolDurations.parseMillis(text);
    if (parsed.isEmpty()) {
      problems.add(
          new ConfigProblem(path, "'" + text + "' is not a duration (write e.g. 90s, 5m, 1h30m)"));
      return -1;
    }
    if (parsed.getAsLong() < minMillis) {
      problems.add(
          new ConfigProblem(
              path, text + " is too short (at least " + PoolDurations.format(minMillis) + ")"));
      return -1;
    }
    return parsed.getAsLong();
  }
}
