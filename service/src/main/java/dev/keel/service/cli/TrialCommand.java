package dev.keel.service.cli;

import dev.keel.service.experiment.ExperimentView;
import dev.keel.service.experiment.TrialReport;
import io.temporal.client.WorkflowClient;
import java.util.OptionalLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "trial",
    mixinStandardHelpOptions = true,
    description = "One trial of an experiment: describe, logs.",
    subcommands = {TrialCommand.Describe.class, TrialCommand.Logs.class})
final class TrialCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description =
          "State, hyperparameters, ranks, and every validation with its metrics and checkpoint.")
  static final class Describe extends ExperimentCommand.Reading {
    @Parameters(index = "0", paramLabel = "EXPERIMENT_ID")
    String id;

    @Parameters(index = "1", paramLabel = "TRIAL")
    long trial;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;

    @Override
    int run(WorkflowClient client) {
      ExperimentView.Document view =
          view(client)
              .read(id)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "no experiment " + id + " in Temporal or the catalog"));
      TrialReport report =
          TrialReport.of(view, trial)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "experiment "
                              + id
                              + " has no trial "
                              + trial
                              + " (it has "
                              + view.tree().path("trials").size()
                              + ")"));
      System.out.print(json ? report.json() + "\n" : report.table());
      return 0;
    }
  }

  @Command(
      name = "logs",
      mixinStandardHelpOptions = true,
      description =
          "The trial's event log: validations, checkpoints saved and deleted by GC, states (as experiment logs --trial).")
  static final class Logs extends ExperimentCommand.Reading {
    @Parameters(index = "0", paramLabel = "EXPERIMENT_ID")
    String id;

    @Parameters(index = "1", paramLabel = "TRIAL")
    long trial;

    @Option(
        names = {"-f", "--follow"},
        description = "Keep printing new lines until the experiment ends.")
    boolean follow;

    @Override
    int run(WorkflowClient client) {
      return ExperimentCommand.printLogs(view(client), id, OptionalLong.of(trial), follow);
    }
  }
}
