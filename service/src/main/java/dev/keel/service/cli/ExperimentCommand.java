package dev.keel.service.cli;

import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentState;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.search.Searchers;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.experiment.ExperimentListing;
import dev.keel.service.experiment.ExperimentTable;
import dev.keel.tables.catalog.ExperimentList;
import dev.keel.service.worker.KeelWorkerHost;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "experiment", mixinStandardHelpOptions = true,
    description = "Hyperparameter searches: list, create, preview, describe, pause, activate, kill.",
    subcommands = {ExperimentCommand.ListExperiments.class, ExperimentCommand.Create.class, ExperimentCommand.Preview.class, ExperimentCommand.Describe.class,
        ExperimentCommand.Pause.class, ExperimentCommand.Activate.class, ExperimentCommand.Kill.class,
        ExperimentCommand.KillTrial.class})
final class ExperimentCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  /** A connection to the configured Temporal, closed after the command. */
  abstract static class Connected implements Callable<Integer> {
    @Mixin StackOptions stack;

    @Override
    public Integer call() throws Exception {
      String address = stack.temporalAddressOrNull() == null ? "127.0.0.1:7233" : stack.temporalAddressOrNull();
      WorkflowServiceStubs stubs = KeelWorkerHost.connect(address);
      try {
        return run(KeelWorkerHost.client(stubs, "default"));
      } finally {
        stubs.shutdown();
      }
    }

    abstract int run(WorkflowClient client) throws Exception;
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = {"The storage root's experiments as the catalog records them, newest first (no Temporal needed:"
          + " experiments past Temporal's retention are listed too)."})
  static final class ListExperiments implements Callable<Integer> {
    @Mixin StackOptions stack;

    @Option(names = "--state", paramLabel = "STATE", description = "Only experiments in this state (ACTIVE, PAUSED, COMPLETED, ...).")
    String state;

    @Option(names = "--name", paramLabel = "TEXT", description = "Only experiments whose name contains TEXT.")
    String name;

    @Option(names = "--offset", defaultValue = "0", description = "Skip this many (default: ${DEFAULT-VALUE}).")
    int offset;

    @Option(names = "--limit", defaultValue = "50", description = "At most this many, 1..1000 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "Print JSON, as GET /api/v1/experiments returns it.")
    boolean json;

    @Override
    public Integer call() {
      ExperimentList.Page page = new ExperimentList(stack.storageRoot())
          .page(Optional.ofNullable(state), Optional.ofNullable(name), offset, limit);
      System.out.print(json ? ExperimentListing.json(page) + "\n" : ExperimentListing.table(page));
      return 0;
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true,
      description = "Validate an experiment config (YAML/JSON) and start it; --follow prints the trials until it ends.")
  static final class Create extends Connected {
    @Parameters(paramLabel = "FILE")
    Path file;

    @Option(names = "--follow", description = "Print the trial table as it changes until the experiment ends.")
    boolean follow;

    @Override
    int run(WorkflowClient client) throws Exception {
      ExperimentConfig config = ExperimentConfigLoaders.experimentLoader().fromFile(file);
      String id = ExperimentLauncher.start(client, ExperimentRequest.newBuilder().setConfig(config).build());
      System.out.println(id);
      if (!follow) {
        return 0;
      }
      String last = "";
      while (true) {
        // the experiment was just started: Temporal knows it
        WorkflowExecutionStatus status = ExperimentLauncher.status(client, id).orElseThrow();
        if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
            && status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW) {
          break;
        }
        String table = ExperimentTable.render(ExperimentLauncher.state(client, id));
        if (!table.equals(last)) {
          System.out.println(table);
          last = table;
        }
        Thread.sleep(2000);
      }
      ExperimentResult result = client.newUntypedWorkflowStub(id).getResult(ExperimentResult.class);
      System.out.println(ExperimentTable.render(result.getState()));
      System.out.println("best checkpoint: " + result.getBestCheckpoint().getUri());
      return 0;
    }
  }

  @Command(name = "preview", mixinStandardHelpOptions = true,
      description = "Show the trials, rungs and lengths a config will produce (like det preview-search).")
  static final class Preview implements Callable<Integer> {
    @Parameters(paramLabel = "FILE")
    Path file;

    @Override
    public Integer call() {
      System.out.print(Searchers.preview(ExperimentConfigLoaders.load(loader -> loader.fromFile(file))).toTable());
      return 0;
    }
  }

  @Command(name = "describe", mixinStandardHelpOptions = true, description = "The experiment's trials and metrics.")
  static final class Describe extends Connected {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Option(names = "--json", description = "Print the state as JSON.")
    boolean json;

    @Override
    int run(WorkflowClient client) throws Exception {
      ExperimentState s = ExperimentLauncher.state(client, id);
      System.out.print(json ? JsonFormat.printer().preservingProtoFieldNames().print(s) + "\n" : ExperimentTable.render(s));
      return 0;
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true, description = "Stop training after each trial's current step.")
  static final class Pause extends Connected {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Override
    int run(WorkflowClient client) {
      ExperimentLauncher.stub(client, id).pause();
      return 0;
    }
  }

  @Command(name = "activate", mixinStandardHelpOptions = true, description = "Resume a paused experiment.")
  static final class Activate extends Connected {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Override
    int run(WorkflowClient client) {
      ExperimentLauncher.stub(client, id).activate();
      return 0;
    }
  }

  @Command(name = "kill", mixinStandardHelpOptions = true, description = "Stop every trial now; the experiment ends KILLED.")
  static final class Kill extends Connected {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Override
    int run(WorkflowClient client) {
      ExperimentLauncher.stub(client, id).kill();
      return 0;
    }
  }

  @Command(name = "kill-trial", mixinStandardHelpOptions = true, description = "Stop one trial; the search goes on.")
  static final class KillTrial extends Connected {
    @Parameters(index = "0", paramLabel = "EXPERIMENT_ID")
    String id;

    @Parameters(index = "1", paramLabel = "TRIAL")
    long trial;

    @Override
    int run(WorkflowClient client) {
      ExperimentLauncher.stub(client, id).killTrial(trial);
      return 0;
    }
  }
}
