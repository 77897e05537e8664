package dev.keel.service.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.search.Searchers;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.experiment.ExperimentListing;
import dev.keel.service.experiment.ExperimentLog;
import dev.keel.service.experiment.ExperimentTable;
import dev.keel.service.experiment.ExperimentView;
import dev.keel.service.security.AuditLines;
import dev.keel.tables.catalog.ExperimentList;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import io.temporal.client.WorkflowClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "experiment",
    mixinStandardHelpOptions = true,
    description =
        "Hyperparameter searches: list, create, preview, describe, wait, logs, pause, activate, kill.",
    subcommands = {
      ExperimentCommand.ListExperiments.class,
      ExperimentCommand.Create.class,
      ExperimentCommand.Preview.class,
      ExperimentCommand.Describe.class,
      ExperimentCommand.Wait.class,
      ExperimentCommand.Logs.class,
      ExperimentCommand.Pause.class,
      ExperimentCommand.Activate.class,
      ExperimentCommand.Kill.class,
      ExperimentCommand.KillTrial.class
    })
final class ExperimentCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  /** A connection to the configured Temporal, closed after the command. */
  abstract static class Connected implements Callable<Integer> {
    /** Where Temporal is (and the storage root, for commands that read one). */
    abstract StackOptions stack();

    @Override
    public Integer call() throws Exception {
      try (TemporalConnection temporal = stack().open()) {
        return run(client(temporal));
      }
    }

    /** A client whose runs use their workers' storage root. */
    WorkflowClient client(TemporalConnection temporal) {
      return temporal.client();
    }

    abstract int run(WorkflowClient client) throws Exception;

    /** The experiment as Temporal and the storage root's catalog know it. */
    ExperimentView view(WorkflowClient client) {
      return new ExperimentView(client, stack().storageRoot());
    }
  }

  /** A command that reads Temporal and the storage root. */
  abstract static class Reading extends Connected {
    @Mixin StackOptions.Client stack;

    @Override
    StackOptions stack() {
      return stack;
    }
  }

  /** A command that only talks to Temporal. */
  abstract static class Controlling extends Connected {
    @Mixin StackOptions.TemporalOnly stack;

    @Override
    StackOptions stack() {
      return stack;
    }
  }

  /** How often a followed experiment is looked at. */
  static final Duration FOLLOW_PERIOD = Duration.ofSeconds(1);

  /**
   * Follows the experiment until its workflow closes, showing its progress, then prints its trials
   * and best checkpoint: exit 0 when it COMPLETED, 1 when it ended otherwise (ERRORED, KILLED).
   *
   * @throws IllegalArgumentException when neither Temporal nor the catalog knows it
   */
  static int follow(ExperimentView view, String id, boolean quiet) {
    // once outside the following, which rides out failed readings: an unreachable Temporal or an
    // unknown id at the start ends the command with its one line instead of "still following"
    // forever
    if (view.read(id).isEmpty()) {
      throw new IllegalArgumentException("no experiment " + id + " in Temporal or the catalog");
    }
    ExperimentProgress progress =
        new ExperimentProgress(System.out, ExperimentProgress.onTerminal());
    JsonNode last = null;
    for (ExperimentView.Reading r : view.follow(id, FOLLOW_PERIOD).toIterable()) {
      if (r instanceof ExperimentView.Changed c) {
        last = c.document().tree();
        if (!quiet) {
          progress.show(last);
        }
      } else if (r instanceof ExperimentView.Problem p) {
        progress.finish();
        System.err.println("keel: " + p.message() + " (still following)");
      } else {
        throw new IllegalArgumentException("no experiment " + id + " in Temporal or the catalog");
      }
    }
    progress.finish();
    JsonNode e = last.path("experiment");
    String state = e.path("state").asText("");
    String best =
        e.has("best_metric")
            ? String.format(
                Locale.ROOT,
                ", best %s %.4f (trial %s)",
                e.path("metric").asText(),
                e.path("best_metric").asDouble(),
                e.path("best_trial_id").asText())
            : "";
    System.out.println(
        "experiment "
            + id
            + " "
            + state
            + best
            + (e.path("error").asText("").isEmpty() ? "" : ": " + e.path("error").asText()));
    return "COMPLETED".equals(state) ? 0 : FriendlyErrors.FAILED;
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = {
        "The storage root's experiments as the catalog records them, newest first.",
        "No Temporal needed: experiments past Temporal's retention are listed too."
      })
  static final class ListExperiments implements Callable<Integer> {
    @Mixin StackOptions.StorageOnly stack;

    @Option(
        names = "--state",
        paramLabel = "STATE",
        description =
            "Only experiments in this state: ACTIVE, PAUSED, COMPLETED, ERRORED or KILLED.")
    String state;

    @Option(
        names = "--name",
        paramLabel = "TEXT",
        description = "Only experiments whose name contains TEXT.")
    String name;

    @Option(
        names = "--offset",
        defaultValue = "0",
        description = "Skip this many (default: ${DEFAULT-VALUE}).")
    int offset;

    @Option(
        names = "--limit",
        defaultValue = "50",
        description = "At most this many, 1..1000 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "Print JSON, as GET /api/v1/experiments returns it.")
    boolean json;

    @Override
    public Integer call() {
      ExperimentList.Page page =
          ExperimentListing.page(
              stack.storageRoot(),
              Optional.ofNullable(state),
              Optional.ofNullable(name),
              offset,
              limit);
      System.out.print(json ? ExperimentListing.json(page) + "\n" : ExperimentListing.table(page));
      return 0;
    }
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description =
          "Validate an experiment config (YAML/JSON) and start it; --follow prints the trials until it ends.")
  static final class Create extends Connected {
    @Mixin StackOptions.Starting stack;

    @Parameters(paramLabel = "FILE")
    Path file;

    @Option(
        names = "--follow",
        description = "Show its progress until it ends, then its trials (as experiment wait).")
    boolean follow;

    @Override
    StackOptions stack() {
      return stack;
    }

    /**
     * A root the user named travels with the run, as with {@code keel submit}; unnamed, the run
     * uses the workers' own.
     */
    @Override
    WorkflowClient client(TemporalConnection temporal) {
      return temporal.client(stack.namedStorageRoot());
    }

    @Override
    int run(WorkflowClient client) throws Exception {
      ExperimentConfig config = ExperimentConfigLoaders.experimentLoader().fromFile(file);
      String id =
          ExperimentLauncher.start(
              client,
              ExperimentRequest.newBuilder()
                  .setConfig(config)
                  .setSubmittedBy(CliUser.name())
                  .build());
      System.out.println(id);
      ExperimentLauncher.warnings(client, config)
          .forEach(w -> System.err.println("keel: warning: " + w));
      if (!follow) {
        return 0;
      }
      int exit = follow(view(client), id, false);
      ExperimentResult result = client.newUntypedWorkflowStub(id).getResult(ExperimentResult.class);
      System.out.print(ExperimentTable.render(result.getState()));
      System.out.println("best checkpoint: " + result.getBestCheckpoint().getUri());
      return exit;
    }
  }

  @Command(
      name = "preview",
      mixinStandardHelpOptions = true,
      description =
          "Show the trials, rungs and lengths a config will produce (like det preview-search).")
  static final class Preview implements Callable<Integer> {
    @Parameters(paramLabel = "FILE")
    Path file;

    @Override
    public Integer call() {
      System.out.print(
          Searchers.preview(ExperimentConfigLoaders.load(loader -> loader.fromFile(file)))
              .toTable());
      return 0;
    }
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description =
          "The experiment's trials and metrics (also after Temporal's retention, from the catalog).")
  static final class Describe extends Reading {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Option(
        names = "--json",
        description = "Print the view JSON, as GET /api/v1/experiments/{id}/view returns it.")
    boolean json;

    @Override
    int run(WorkflowClient client) throws Exception {
      ExperimentView.Document d =
          view(client)
              .read(id)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "no experiment " + id + " in Temporal or the catalog"));
      String unanswered = d.tree().path("experiment").path("unanswered").asText("");
      System.out.print(
          json
              ? d.json() + "\n"
              : ExperimentTable.render(ExperimentTable.state(d.tree()))
                  + (unanswered.isEmpty() ? "" : "note: " + unanswered + "\n")
                  + AuditLines.text(d.tree().path("activity")));
      return 0;
    }
  }

  @Command(
      name = "wait",
      mixinStandardHelpOptions = true,
      description = {
        "Follow an experiment until it ends: a progress bar on a terminal (plain lines otherwise).",
        "Exit code 0 when it COMPLETED, 1 when it ERRORED or was KILLED, 2 when there is no such experiment."
      })
  static final class Wait extends Reading {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Option(
        names = {"-q", "--quiet"},
        description = "Print only the final line.")
    boolean quiet;

    @Override
    int run(WorkflowClient client) {
      return follow(view(client), id, quiet);
    }
  }

  @Command(
      name = "logs",
      mixinStandardHelpOptions = true,
      description = {
        "The experiment's event log, oldest first.",
        "Each validation with its metrics, checkpoints saved and deleted by checkpoint GC, trial states. What the"
            + " workers print stays in their own logs."
      })
  static final class Logs extends Reading {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Option(names = "--trial", paramLabel = "N", description = "Only trial N.")
    Long trial;

    @Option(
        names = {"-f", "--follow"},
        description = "Keep printing new lines until the experiment ends.")
    boolean follow;

    @Override
    int run(WorkflowClient client) {
      return printLogs(
          view(client), id, trial == null ? OptionalLong.empty() : OptionalLong.of(trial), follow);
    }
  }

  /**
   * Prints the log lines of the experiment (or one trial), with {@code follow} also those to come.
   */
  static int printLogs(ExperimentView view, String id, OptionalLong trial, boolean follow) {
    Set<String> printed = new HashSet<>();
    Iterable<ExperimentView.Reading> readings =
        follow
            ? view.follow(id, FOLLOW_PERIOD).toIterable()
            : List.of(
                view.read(id)
                    .<ExperimentView.Reading>map(ExperimentView.Changed::new)
                    .orElse(new ExperimentView.Gone()));
    for (ExperimentView.Reading r : readings) {
      if (r instanceof ExperimentView.Changed c) {
        String unit = c.document().tree().path("experiment").path("unit").asText("units");
        for (ExperimentLog.Line line : ExperimentLog.lines(c.document().records(), trial, unit)) {
          if (printed.add(line.key())) {
            System.out.println(ExperimentLog.format(line));
          }
        }
      } else if (r instanceof ExperimentView.Problem p) {
        System.err.println("keel: " + p.message() + " (still following)");
      } else {
        throw new IllegalArgumentException("no experiment " + id + " in Temporal or the catalog");
      }
    }
    return 0;
  }

  @Command(
      name = "pause",
      mixinStandardHelpOptions = true,
      description = "Stop training after each trial's current step.")
  static final class Pause extends Controlling {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Override
    int run(WorkflowClient client) {
      ExperimentLauncher.signal(client, id, "paused", ExperimentWorkflow::pause);
      return 0;
    }
  }

  @Command(
      name = "activate",
      mixinStandardHelpOptions = true,
      description = "Resume a paused experiment.")
  static final class Activate extends Controlling {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Override
    int run(WorkflowClient client) {
      ExperimentLauncher.signal(client, id, "activated", ExperimentWorkflow::activate);
      return 0;
    }
  }

  @Command(
      name = "kill",
      mixinStandardHelpOptions = true,
      description = "Stop every trial now; the experiment ends KILLED.")
  static final class Kill extends Controlling {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Override
    int run(WorkflowClient client) {
      ExperimentLauncher.signal(client, id, "killed", ExperimentWorkflow::kill);
      return 0;
    }
  }

  @Command(
      name = "kill-trial",
      mixinStandardHelpOptions = true,
      description = "Stop one trial; the search goes on.")
  static final class KillTrial extends Controlling {
    @Parameters(index = "0", paramLabel = "EXPERIMENT_ID")
    String id;

    @Parameters(index = "1", paramLabel = "TRIAL")
    long trial;

    @Override
    int run(WorkflowClient client) {
      ExperimentLauncher.signal(client, id, "asked to kill a trial", e -> e.killTrial(trial));
      return 0;
    }
  }
}
