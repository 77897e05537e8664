package dev.keel.service.cli;

import dev.keel.api.v1.Length;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.service.schedule.PipelineSchedules;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "schedule",
    mixinStandardHelpOptions = true,
    description = {
      "Scheduled retraining on Temporal Schedules: list, create, pause, unpause, trigger, describe, delete.",
      "Needs the Temporal CLI's dev server (keel dev --temporal cli) or a cluster: the embedded Java test server has"
          + " no Schedules. The web UI lists them under Schedules."
    },
    subcommands = {
      ScheduleCommand.ListSchedules.class,
      ScheduleCommand.Create.class,
      ScheduleCommand.Pause.class,
      ScheduleCommand.Unpause.class,
      ScheduleCommand.Trigger.class,
      ScheduleCommand.Describe.class,
      ScheduleCommand.Delete.class
    })
final class ScheduleCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Every schedule of the namespace: state, next run, note.")
  static final class ListSchedules implements Callable<Integer> {
    @Mixin StackOptions.TemporalOnly stack;

    @Option(names = "--json", description = "Print JSON, as GET /api/v1/schedules returns it.")
    boolean json;

    @Override
    public Integer call() {
      try (TemporalConnection temporal = stack.open()) {
        List<PipelineSchedules.Listed> all = temporal.schedules().list();
        System.out.print(json ? PipelineSchedules.json(all) + "\n" : PipelineSchedules.table(all));
        return 0;
      } catch (RuntimeException e) {
        throw plainly(e);
      }
    }
  }

  /**
   * A server without Schedules (the embedded Java test server) as one line saying what to use, as
   * the REST API's 501.
   */
  static RuntimeException plainly(RuntimeException e) {
    return PipelineSchedules.unimplemented(e)
        ? new FriendlyErrors.Failure(PipelineSchedules.NO_SCHEDULES, e)
        : e;
  }

  /** Connects, runs, disconnects. */
  abstract static class Base implements Callable<Integer> {
    @Mixin StackOptions.TemporalOnly stack;

    @Parameters(
        index = "0",
        paramLabel = "SCHEDULE_ID",
        description = "Schedule id, e.g. nightly-fashion-mnist.")
    String scheduleId;

    @Override
    public Integer call() throws Exception {
      try (TemporalConnection temporal = stack.open()) {
        return run(temporal.schedules());
      } catch (RuntimeException e) {
        throw plainly(e);
      }
    }

    abstract int run(PipelineSchedules schedules) throws Exception;
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description =
          "Create a schedule that starts the pipeline FILE (or the demo pipeline) on a cron spec.")
  static final class Create extends Base {
    @Parameters(
        index = "1",
        arity = "0..1",
        paramLabel = "FILE",
        description = "Pipeline request (.yaml/.json); default: the demo pipeline.")
    Path file;

    @Option(
        names = "--cron",
        required = true,
        paramLabel = "SPEC",
        description =
            "Cron spec in UTC, e.g. '0 3 * * *' (nightly at 03:00) or '@every 6h'; repeatable.")
    List<String> cron;

    @Option(
        names = "--overlap",
        defaultValue = "skip",
        paramLabel = "POLICY",
        description =
            "When a run is still going: skip, buffer-one, buffer-all, cancel-other, terminate-other, allow-all (default: ${DEFAULT-VALUE}).")
    String overlap;

    @Option(names = "--paused", description = "Create it paused.")
    boolean paused;

    @Option(names = "--note", description = "Note shown with the schedule's state.")
    String note;

    @Option(
        names = "--batches",
        paramLabel = "N",
        description = "Train for N batches instead of the request's length.")
    Long batches;

    @Override
    int run(PipelineSchedules schedules) {
      PipelineRequest request =
          file != null
              ? ExperimentConfigLoaders.pipelineLoader().fromFile(file)
              : DemoRequest.load(Path.of(DemoRequest.DEFAULT_DATA));
      if (batches != null) {
        PipelineRequest.Builder b = request.toBuilder();
        b.getExperimentBuilder()
            .getSearcherBuilder()
            .setMaxLength(Length.newBuilder().setBatches(batches));
        request = ExperimentConfigLoaders.pipelineLoader().validate(b.build(), "pipeline request");
      }
      schedules.create(scheduleId, request, cron, PipelineSchedules.overlap(overlap), paused, note);
      System.out.println(
          "Created schedule "
              + scheduleId
              + (paused ? " (paused)" : "")
              + ": pipeline "
              + request.getName()
              + " on "
              + cron);
      return 0;
    }
  }

  @Command(
      name = "pause",
      mixinStandardHelpOptions = true,
      description = "Pause a schedule: no runs start until unpaused.")
  static final class Pause extends Base {
    @Option(names = "--note")
    String note;

    @Override
    int run(PipelineSchedules schedules) {
      schedules.pause(scheduleId, note);
      System.out.println("Paused " + scheduleId);
      return 0;
    }
  }

  @Command(
      name = "unpause",
      mixinStandardHelpOptions = true,
      description = "Resume a paused schedule.")
  static final class Unpause extends Base {
    @Option(names = "--note")
    String note;

    @Override
    int run(PipelineSchedules schedules) {
      schedules.unpause(scheduleId, note);
      System.out.println("Unpaused " + scheduleId);
      return 0;
    }
  }

  @Command(
      name = "trigger",
      mixinStandardHelpOptions = true,
      description = "Start one run now (also when paused).")
  static final class Trigger extends Base {
    @Override
    int run(PipelineSchedules schedules) {
      schedules.trigger(scheduleId);
      System.out.println("Triggered " + scheduleId);
      return 0;
    }
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description = "State, spec, overlap policy and recent runs.")
  static final class Describe extends Base {
    @Override
    int run(PipelineSchedules schedules) {
      System.out.print(PipelineSchedules.format(schedules.describe(scheduleId)));
      return 0;
    }
  }

  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description = "Delete a schedule (its runs are kept).")
  static final class Delete extends Base {
    @Override
    int run(PipelineSchedules schedules) {
      schedules.delete(scheduleId);
      System.out.println("Deleted " + scheduleId);
      return 0;
    }
  }
}
