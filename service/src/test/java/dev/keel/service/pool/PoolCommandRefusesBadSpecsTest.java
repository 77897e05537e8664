package dev.keel.service.pool;

import static dev.keel.service.cli.KeelRun.keel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.keel.service.cli.KeelRun;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code keel pool start} with specs that cannot run: every problem with its field path, exit code
 * 2, no stack trace, and nothing sent to Temporal (the address below has no server).
 */
class PoolCommandRefusesBadSpecsTest {

  @Test
  void aPoolSmallerThanItsLargestGangAndOtherProblemsAreNamedByField(@TempDir Path dir)
      throws Exception {
    Path spec =
        Files.writeString(
            dir.resolve("gpu.yaml"),
            """
        name: gpu
        slots_per_instance: 1
        max_instances: 1
        max_slots_per_trial: 2
        max_idle_period: 5 minutes
        aws_asg: {region: eu-west-1}
        """);
    KeelRun.Result r = keel("pool", "start", spec.toString(), "--temporal", "127.0.0.1:1");
    assertEquals(2, r.code(), r.toString());
    assertEquals(
        "keel: invalid pool spec "
            + spec
            + " (3 problems):\n"
            + "  max_instances: 1 is smaller than the largest gang, 2 slots_per_trial / 1 slots_per_instance = 2 instances\n"
            + "  max_idle_period: '5 minutes' is not a duration (write e.g. 90s, 5m, 1h30m)\n"
            + "  aws_asg.auto_scaling_group_name: required\n",
        r.err());
    assertEquals("", r.out());
  }

  @Test
  void unknownFieldsAndAMissingFileAreRefusedTheSameWay(@TempDir Path dir) throws Exception {
    Path spec =
        Files.writeString(
            dir.resolve("gpu.yaml"),
            """
        name: gpu
        max_instance: 4
        tofu: {working_dir: /srv/pool, aws_asg: {auto_scaling_group_name: keel-gpu}}
        """);
    KeelRun.Result r = keel("pool", "start", spec.toString(), "--temporal", "127.0.0.1:1");
    assertEquals(2, r.code(), r.toString());
    assertEquals(
        "keel: invalid pool spec "
            + spec
            + " (1 problem):\n  max_instance: unknown field (expected one of name,"
            + " slots_per_instance, min_instances, max_instances, max_idle_period, max_starting_period, launch_error_backoff,"
            + " max_launch_error_backoff, poll_interval, max_slots_per_trial, continue_as_new_after_iterations, aws_asg, tofu)\n",
        r.err());

    KeelRun.Result missing =
        keel("pool", "start", dir.resolve("nope.yaml").toString(), "--temporal", "127.0.0.1:1");
    assertEquals(2, missing.code());
    assertEquals(
        "keel: invalid pool spec "
            + dir.resolve("nope.yaml")
            + " (1 problem):\n  <root>: file not found\n",
        missing.err());
    assertFalse(missing.err().contains("\tat "), "no stack trace");
  }
}
