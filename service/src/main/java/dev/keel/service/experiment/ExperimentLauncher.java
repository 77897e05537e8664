package dev.keel.service.experiment;

import dev.keel.activities.TaskQueues;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentState;
import dev.keel.service.visibility.KeelWorkers;
import dev.keel.service.visibility.WorkflowDescriptions;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;

/** Starts experiments with readable ids and sends them control signals. */
public final class ExperimentLauncher {
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private ExperimentLauncher() {}

  /**
   * A readable, unique run id: {@code <kind>-<name>-<utc time>-<4 hex digits>}, the name reduced to
   * the characters ids keep ({@code unnamed} when blank).
   */
  public static String runId(String kind, String name) {
    return kind
        + "-"
        + idName(name)
        + "-"
        + STAMP.format(Instant.now())
        + "-"
        + Long.toHexString(System.nanoTime() & 0xffff);
  }

  /**
   * The submission-time checks of an experiment config that the config validator (pure, shared with
   * workflow code) cannot make: its metric is one the trainer reports ({@link MetricCheck}) and
   * each file its {@code model.torchscript} names is there and is TorchScript ({@link
   * ModelFileCheck}; the table's shape is known only to the trials).
   *
   * @param what names the config in the error, e.g. the file it was read from
   * @throws ConfigValidationException listing each problem with its field path
   */
  public static void check(ExperimentConfig config, String what) {
    List<ConfigProblem> problems = new ArrayList<>(MetricCheck.problems(config, ""));
    problems.addAll(ModelFileCheck.problems(config, "", Optional.empty()));
    if (!problems.isEmpty()) {
      throw new ConfigValidationException(what, problems);
    }
  }

  /** {@code name} as run ids keep it: {@code unnamed} when blank, other characters as {@code -}. */
  public static String idName(String name) {
    return name.isBlank() ? "unnamed" : name.replaceAll("[^A-Za-z0-9_.-]", "-");
  }

  /**
   * Starts an experiment whose config the caller loaded through {@link
   * dev.keel.search.ExperimentConfigs} (which validated it); the workflow checks it once more at
   * start, as it must for starts that bypass Keel's client. The id reads {@code
   * experiment-<name>-<utc time>}.
   *
   * @throws ConfigValidationException when {@code searcher.metric} is not one the trainer reports
   *     ({@link MetricCheck}) or a {@code model.torchscript} file is missing or not TorchScript
   *     ({@link ModelFileCheck}); nothing is started then
   */
  public static String start(WorkflowClient client, ExperimentRequest request) {
    check(request.getConfig(), "experiment config");
    ExperimentConfig config = request.getConfig();
    String id = runId("experiment", config.getName());
    ExperimentWorkflow wf =
        client.newWorkflowStub(
            ExperimentWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId(id)
                .setStaticSummary(
                    "experiment "
                        + config.getName()
                        + ": "
                        + config.getSearcher().getName()
                        + " on "
                        + config.getData().getTable()
                        + " ("
                        + config.getSearcher().getMetric()
                        + ")")
                .build());
    WorkflowClient.start(wf::run, request);
    return id;
  }

  /**
   * What the submitter should know before the experiment waits in silence: too few workers poll its
   * pool to start a trial (where the server can tell; the embedded test server cannot).
   */
  public static List<String> warnings(WorkflowClient client, ExperimentConfig config) {
    String pool =
        config.getResources().getResourcePool().isBlank()
            ? ConfigDefaults.RESOURCE_POOL
            : config.getResources().getResourcePool();
    int slots =
        config.getResources().hasSlotsPerTrial()
            ? config.getResources().getSlotsPerTrial()
            : ConfigDefaults.SLOTS_PER_TRIAL;
    try {
      return KeelWorkers.slotWarning(client, pool, slots).map(List::of).orElse(List.of());
    } catch (RuntimeException e) {
      return List.of(); // a warning only: the server's answer must not stop a submission
    }
  }

  public static ExperimentWorkflow stub(WorkflowClient client, String id) {
    return client.newWorkflowStub(ExperimentWorkflow.class, id);
  }

  public static ExperimentState state(WorkflowClient client, String id) {
    return stub(client, id).state();
  }

  /**
   * Sends a control signal ({@code send}) to a running experiment.
   *
   * @param done what the signal does, for the message when it cannot: "paused", "killed", ...
   * @throws NotRunning naming why when Temporal knows no such experiment or it has ended
   */
  public static void signal(
      WorkflowClient client, String id, String done, Consumer<ExperimentWorkflow> send) {
    try {
      send.accept(stub(client, id));
    } catch (WorkflowNotFoundException e) {
      Optional<WorkflowExecutionStatus> status = status(client, id);
      if (status.isEmpty()) {
        throw new NotRunning("no experiment " + id, false, e);
      }
      String state =
          status
              .get()
              .name()
              .substring("WORKFLOW_EXECUTION_STATUS_".length())
              .toLowerCase(Locale.ROOT);
      throw new NotRunning(
          "experiment " + id + " has ended (" + state + "): it cannot be " + done, true, e);
    }
  }

  /** A signal for an experiment Temporal does not know ({@code ended} false) or that has ended. */
  public static final class NotRunning extends IllegalArgumentException {
    private final boolean ended;

    NotRunning(String message, boolean ended, Throwable cause) {
      super(message, cause);
      this.ended = ended;
    }

    public boolean ended() {
      return ended;
    }
  }

  /**
   * What the experiment's current run started with (its config with defaults; after a
   * continue-as-new also what it carried): the input of the first event of its history.
   *
   * @throws StatusRuntimeException {@code NOT_FOUND} when Temporal knows no workflow of that id
   */
  public static ExperimentRequest request(WorkflowClient client, String id) {
    HistoryEvent started =
        client
            .getWorkflowServiceStubs()
            .blockingStub()
            .getWorkflowExecutionHistory(
                GetWorkflowExecutionHistoryRequest.newBuilder()
                    .setNamespace(client.getOptions().getNamespace())
                    .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                    .setMaximumPageSize(1)
                    .build())
            .getHistory()
            .getEvents(0);
    return client
        .getOptions()
        .getDataConverter()
        .fromPayloads(
            0,
            Optional.of(started.getWorkflowExecutionStartedEventAttributes().getInput()),
            ExperimentRequest.class,
            ExperimentRequest.class);
  }

  /**
   * The experiment workflow's execution status, or empty when Temporal knows no workflow of that
   * id.
   */
  public static Optional<WorkflowExecutionStatus> status(WorkflowClient client, String id) {
    return WorkflowDescriptions.describe(client, id)
        .map(d -> d.getWorkflowExecutionInfo().getStatus());
  }
}
