package dev.keel.service.pipeline;

import dev.keel.api.config.Splits;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.PipelineStage;
import dev.keel.api.v1.TrainProgress;
import dev.keel.api.v1.TrialState;
import dev.keel.search.Searchers;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Follows a pipeline on a terminal: the stage from the workflow's {@code progress} query, and the
 * training batches and loss from the train activity's heartbeat details (Temporal keeps them with
 * the pending activity, so any client can read them, not just the worker's process).
 */
public final class PipelineWatcher {
  private final WorkflowClient client;
  private final WorkflowServiceStubs stubs;
  private final PrintStream out;
  private final Duration poll;

  /**
   * Training progress changes with every heartbeat; a line per 10 s per key reads well on a
   * terminal.
   */
  private static final long EVERY_SECONDS = 10;

  private final Map<String, String> shown = new HashMap<>();
  private final Map<String, Long> shownAt = new HashMap<>();

  /** Trials each followed experiment's searcher plans, by experiment id. */
  private final Map<String, Integer> planned = new HashMap<>();

  /** The index in {@link #STAGES} of the last stage whose line was printed. */
  private int stagesShown = -1;

  private boolean warmStartShown;
  private boolean searchConcluded;

  public PipelineWatcher(
      WorkflowClient client, WorkflowServiceStubs stubs, PrintStream out, Duration poll) {
    this.client = client;
    this.stubs = stubs;
    this.out = out;
    this.poll = poll;
  }

  /**
   * Prints progress until the pipeline closes; returns its result or throws its failure. Every
   * stage it went through gets its line, also one that began and ended between two looks, and the
   * stages' results after the pipeline closed (read once more then, so the last ones are never lost
   * to the polling).
   */
  public PipelineResult follow(String id) throws InterruptedException {
    while (true) {
      DescribeWorkflowExecutionResponse d = describe(id);
      if (d.getWorkflowExecutionInfo().getStatus()
          != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        break;
      }
      PipelineProgress p = client.newWorkflowStub(PipelineWorkflow.class, id).progress();
      showStages(p);
      if (p.getStage() == PipelineStage.search && !p.getExperimentId().isEmpty()) {
        showSearch(p.getExperimentId(), false);
      }
      for (PendingActivityInfo a : d.getPendingActivitiesList()) {
        show(a.getActivityType().getName(), activityLine("[train]   ", a));
      }
      Thread.sleep(poll.toMillis());
    }
    try {
      // a closed workflow still answers queries: its final progress has every stage's result
      showStages(client.newWorkflowStub(PipelineWorkflow.class, id).progress());
    } catch (WorkflowException | StatusRuntimeException unanswered) {
      // no worker to answer: the result (or failure) below is all there is
    }
    WorkflowStub stub = client.newUntypedWorkflowStub(id);
    return stub.getResult(PipelineResult.class);
  }

  /**
   * What a followed pipeline produced, as {@code keel demo} and {@code keel submit --wait} end: its
   * test accuracy and time, then its data version, model, checkpoint, champion decision and
   * predictions.
   */
  public static String done(PipelineRequest request, PipelineResult r, long nanos) {
    String split =
        request.getInference().getSplit().isEmpty()
            ? Splits.TEST
            : request.getInference().getSplit(); // the default
    StringBuilder out =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "[done]  test accuracy %.4f on %,d %s rows in %.0f s%n",
                r.getInference().getAccuracy(),
                r.getInference().getRows(),
                split,
                nanos / 1e9));
    out.append("        data table:        ")
        .append(r.getData().getUri())
        .append(" @ version ")
        .append(r.getData().getVersion())
        .append(System.lineSeparator());
    out.append("        model:             ")
        .append(r.getModel().getName())
        .append(" v")
        .append(r.getModel().getVersion())
        .append(" (")
        .append(r.getModel().getStage())
        .append("), from ")
        .append(r.getExperimentId())
        .append(System.lineSeparator());
    out.append("        checkpoint:        ")
        .append(r.getCheckpoint().getUri())
        .append(System.lineSeparator());
    if (r.hasComparison()) {
      var c = r.getComparison();
      out.append("        champion:          ")
          .append(
              c.hasChampion()
                  ? String.format(
                      Locale.ROOT,
                      "v%d %.4f vs this run's %.4f: %s",
                      c.getChampion().getVersion(),
                      c.getChampionValue(),
                      c.getChallengerValue(),
                      c.getDecision().name().replace('_', ' '))
                  : "none before: promoted")
          .append(System.lineSeparator());
    }
    out.append("        predictions table: ")
        .append(r.getInference().getPredictions().getUri())
        .append(" @ version ")
        .append(r.getInference().getPredictions().getVersion())
        .append(System.lineSeparator());
    // again at the end, where the result is read: e.g. a class the model could not learn
    r.getIngest()
        .getWarningsList()
        .forEach(
            w ->
                out.append("        warning:           ").append(w).append(System.lineSeparator()));
    return out.toString();
  }

  /**
   * The stages of a pipeline in the order it runs them; each either runs or is listed as skipped.
   */
  private static final List<PipelineStage> STAGES =
      Arrays.stream(PipelineStage.values())
          .filter(
              s ->
                  s != PipelineStage.PIPELINE_STAGE_UNSPECIFIED
                      && s != PipelineStage.done
                      && s != PipelineStage.UNRECOGNIZED)
          .toList();

  /**
   * Prints the line of every stage since the last one shown, up to the current one, except skipped
   * ones.
   */
  private void showStages(PipelineProgress p) {
    if (p.hasWarmStart() && !warmStartShown) {
      out.printf(
          Locale.ROOT,
          "[warm]     starting from %s v%d (%s), checkpoint %s (%,d batches)%n",
          p.getWarmStart().getName(),
          p.getWarmStart().getVersion(),
          p.getWarmStart().getStage(),
          p.getWarmStart().getCheckpoint().getUri(),
          p.getWarmStart().getCheckpoint().getBatches());
      warmStartShown = true;
    }
    int at = p.getStage() == PipelineStage.done ? STAGES.size() - 1 : STAGES.indexOf(p.getStage());
    if (at < 0) {
      show("stage", "[" + p.getStage() + "]"); // a stage this client does not know yet
      return;
    }
    for (int i = stagesShown + 1; i <= at; i++) {
      PipelineStage stage = STAGES.get(i);
      if (i > STAGES.indexOf(PipelineStage.search)
          && !searchConcluded
          && !skipped(p, PipelineStage.search)
          && !p.getExperimentId().isEmpty()) {
        showSearch(p.getExperimentId(), true); // how the search ended, before what came of it
        searchConcluded = true;
      }
      if (skipped(p, stage)) {
        continue;
      }
      String line = stageLine(stage, p);
      if (!line.isEmpty()) {
        out.println(line);
      }
    }
    stagesShown = Math.max(stagesShown, at);
  }

  private static boolean skipped(PipelineProgress p, PipelineStage stage) {
    return p.getSkippedList().stream().anyMatch(skip -> skip.startsWith(stage.name() + ":"));
  }

  private DescribeWorkflowExecutionResponse describe(String id) {
    return stubs
        .blockingStub()
        .describeWorkflowExecution(
            DescribeWorkflowExecutionRequest.newBuilder()
                .setNamespace(client.getOptions().getNamespace())
                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                .build());
  }

  private static String stageLine(PipelineStage stage, PipelineProgress p) {
    return switch (stage) {
      case validate -> ""; // a moment, or resolving warm_start (shown once resolved)
      case etl -> "[etl]      ingesting the source into a Delta table";
      case search ->
          dataLine(p)
              + String.format(Locale.ROOT, "%n[search]   experiment %s", p.getExperimentId());
      case train -> "[train]    training the best trial on";
      case register ->
          (p.hasTrain() ? trainedLine(p) + String.format(Locale.ROOT, "%n") : "")
              + "[register] registering the model";
      case infer ->
          String.format(
              Locale.ROOT,
              "%s[model]    %s v%d (%s), checkpoint %s%n[infer]    scoring",
              p.getExperimentId().isEmpty() ? dataLine(p) + String.format(Locale.ROOT, "%n") : "",
              p.getModel().getName(),
              p.getModel().getVersion(),
              p.getModel().getStage(),
              p.getModel().getCheckpoint().getUri());
      case promote ->
          String.format(
              Locale.ROOT,
              "[infer]    accuracy %.4f on %,d rows, predictions %s @ version %d%n"
                  + "%s[promote]  comparing %s v%d with the champion",
              p.getInference().getAccuracy(),
              p.getInference().getRows(),
              p.getInference().getPredictions().getUri(),
              p.getInference().getPredictions().getVersion(),
              driftLine(p),
              p.getModel().getName(),
              p.getModel().getVersion());
      default -> "[" + stage + "]";
    };
  }

  /** The run's drift check, when the request had one (a line with its newline), else nothing. */
  private static String driftLine(PipelineProgress p) {
    if (!p.getInference().hasDrift()) {
      return "";
    }
    var d = p.getInference().getDrift();
    return String.format(
        Locale.ROOT,
        "[drift]    %s %.4f %s threshold %.4f: %s%s%n",
        d.getMeasure(),
        d.getScore(),
        d.getDrifted() ? ">" : "<=",
        d.getThreshold(),
        d.getDrifted() ? "DRIFTED" : "no drift",
        d.getTriggeredSchedule().isEmpty()
            ? ""
            : ", triggered schedule " + d.getTriggeredSchedule());
  }

  private static String dataLine(PipelineProgress p) {
    if (!p.hasIngest()) {
      return String.format(
          Locale.ROOT,
          "[data]     reusing table %s version %d",
          p.getData().getUri(),
          p.getData().getVersion());
    }
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "[etl]      table %s version %d (%,d rows%s)",
                p.getIngest().getTable().getUri(),
                p.getIngest().getTable().getVersion(),
                p.getIngest().getRows(),
                p.getIngest().getAlreadyIngested() ? ", already ingested" : ""));
    IngestText.perSplitAndLabel(p.getIngest())
        .forEach(l -> sb.append(String.format(Locale.ROOT, "%n[etl]      %s", l)));
    p.getIngest()
        .getWarningsList()
        .forEach(w -> sb.append(String.format(Locale.ROOT, "%n[warning]  %s", w)));
    return sb.toString();
  }

  private static String trainedLine(PipelineProgress p) {
    return String.format(
        Locale.ROOT,
        "[train]    done: %,d batches in %.0f s, validation accuracy %.4f, loss %.4f",
        p.getTrain().getBatches(),
        p.getTrain().getSeconds(),
        p.getTrain().getValidationMetricsOrDefault("validation_accuracy", Double.NaN),
        p.getTrain().getValidationMetricsOrDefault("validation_loss", Double.NaN));
  }

  /**
   * The child experiment's trials done of those its searcher plans and its best metric so far (with
   * {@code last}, its final state, whenever it was last shown), and each running trial's training
   * progress (from its Train activity's heartbeat, read from the trial workflow's pending
   * activities). Nothing until it answers queries.
   */
  private void showSearch(String experimentId, boolean last) {
    ExperimentState e;
    try {
      e = client.newWorkflowStub(ExperimentWorkflow.class, experimentId).state();
    } catch (WorkflowException | StatusRuntimeException notStartedYet) {
      return;
    }
    if (e.getTrialsCount() == 0) {
      return;
    }
    long done =
        e.getTrialsList().stream().filter(t -> t.getState() != TrialState.State.ACTIVE).count();
    String best =
        e.hasBestMetric()
            ? String.format(
                Locale.ROOT,
                ", best %s %.4f (trial %d)",
                e.getMetric(),
                e.getBestMetric(),
                e.getBestTrialId())
            : "";
    String line =
        String.format(
            Locale.ROOT,
            "[search]   %d of %s trials done, %.0f%%%s",
            done,
            planned(experimentId),
            e.getProgress() * 100,
            best);
    if (last) {
      if (!line.equals(shown.get("search"))) {
        out.println(line);
        shown.put("search", line);
      }
      return;
    }
    show("search", line);
    for (TrialState t : e.getTrialsList()) {
      if (t.getState() != TrialState.State.ACTIVE || t.getWorkflowId().isEmpty()) {
        continue;
      }
      try {
        for (PendingActivityInfo a : describe(t.getWorkflowId()).getPendingActivitiesList()) {
          show(
              "trial-" + t.getTrialId(),
              activityLine(String.format(Locale.ROOT, "[trial %d] ", t.getTrialId()), a));
        }
      } catch (StatusRuntimeException notStartedYet) {
        // the trial's workflow starts a moment after the experiment lists it
      }
    }
  }

  /**
   * How many trials the experiment's searcher plans, from the config it started with (what {@code
   * keel experiment preview} shows), not the trials it has created so far; "?" while it cannot be
   * read.
   */
  private String planned(String experimentId) {
    if (!planned.containsKey(experimentId)) {
      try {
        planned.put(
            experimentId,
            Searchers.preview(ExperimentLauncher.request(client, experimentId).getConfig())
                .trials());
      } catch (RuntimeException notReadable) {
        return "?";
      }
    }
    return Integer.toString(planned.get(experimentId));
  }

  /**
   * Prints a line of {@code key} when it changed, at most every {@value #EVERY_SECONDS} s per key.
   */
  private void show(String key, String line) {
    long now = System.nanoTime();
    if (!line.isEmpty()
        && !line.equals(shown.get(key))
        && (!shownAt.containsKey(key) || now - shownAt.get(key) > EVERY_SECONDS * 1_000_000_000L)) {
      out.println(line);
      shown.put(key, line);
      shownAt.put(key, now);
    }
  }

  /**
   * The line of a pending activity's heartbeat; empty when it has not reported training progress: a
   * Train activity preparing its data and model heartbeats empty details to stay alive.
   */
  static String activityLine(String prefix, PendingActivityInfo a) {
    String retry = a.getAttempt() > 1 ? " (attempt " + a.getAttempt() + ")" : "";
    if (!a.hasHeartbeatDetails() || a.getHeartbeatDetails().getPayloadsCount() == 0) {
      return "";
    }
    if ("Train".equals(a.getActivityType().getName())) {
      TrainProgress t =
          KeelDataConverter.get()
              .fromPayloads(
                  0,
                  Optional.of(a.getHeartbeatDetails()),
                  TrainProgress.class,
                  TrainProgress.class);
      if (t.getTargetBatches() == 0) {
        return "";
      }
      return String.format(
          Locale.ROOT,
          "%sepoch %d  batch %,d/%,d  loss %.4f  %.1f batches/s%s",
          prefix,
          t.getEpoch(),
          t.getBatches(),
          t.getTargetBatches(),
          t.getLoss(),
          t.getBatchesPerSecond(),
          retry);
    }
    return "";
  }
}
