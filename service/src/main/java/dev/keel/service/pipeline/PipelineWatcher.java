package dev.keel.service.pipeline;

import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.TrainProgress;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialState;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.pipeline.PipelineWorkflow;
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
import java.util.HashMap;
import java.util.Map;
import java.util.Locale;
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
  /** Training progress changes with every heartbeat; a line per 10 s per key reads well on a terminal. */
  private static final long EVERY_SECONDS = 10;
  private final Map<String, String> shown = new HashMap<>();
  private final Map<String, Long> shownAt = new HashMap<>();

  public PipelineWatcher(WorkflowClient client, WorkflowServiceStubs stubs, PrintStream out, Duration poll) {
    this.client = client;
    this.stubs = stubs;
    this.out = out;
    this.poll = poll;
  }

  /** Prints progress until the pipeline closes; returns its result or throws its failure. */
  public PipelineResult follow(String id) throws InterruptedException {
    String lastStage = "";
    boolean warmStartShown = false;
    while (true) {
      DescribeWorkflowExecutionResponse d = describe(id);
      if (d.getWorkflowExecutionInfo().getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        break;
      }
      PipelineProgress p = client.newWorkflowStub(PipelineWorkflow.class, id).progress();
      if (p.hasWarmStart() && !warmStartShown) {
        out.printf(Locale.ROOT, "[warm]     starting from %s v%d (%s), checkpoint %s (%,d batches)%n",
            p.getWarmStart().getName(), p.getWarmStart().getVersion(), p.getWarmStart().getStage(),
            p.getWarmStart().getCheckpoint().getUri(), p.getWarmStart().getCheckpoint().getBatches());
        warmStartShown = true;
      }
      if (!p.getStage().equals(lastStage)) {
        String line = stageLine(p);
        if (!line.isEmpty()) {
          out.println(line);
        }
        lastStage = p.getStage();
      }
      if ("search".equals(p.getStage()) && !p.getExperimentId().isEmpty()) {
        showSearch(p.getExperimentId());
      }
      for (PendingActivityInfo a : d.getPendingActivitiesList()) {
        show(a.getActivityType().getName(), activityLine("[train]   ", a));
      }
      Thread.sleep(poll.toMillis());
    }
    WorkflowStub stub = client.newUntypedWorkflowStub(id);
    return stub.getResult(PipelineResult.class);
  }

  private DescribeWorkflowExecutionResponse describe(String id) {
    return stubs.blockingStub().describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
        .setNamespace(client.getOptions().getNamespace())
        .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
        .build());
  }

  private static String stageLine(PipelineProgress p) {
    return switch (p.getStage()) {
      case "validate" -> ""; // a moment, or resolving warm_start (shown once resolved)
      case "etl" -> "[etl]      ingesting the source into a Delta table";
      case "search" -> dataLine(p) + String.format(Locale.ROOT, "%n[search]   experiment %s", p.getExperimentId());
      case "train" -> "[train]    training the best trial on";
      case "register" -> (p.hasTrain() ? trainedLine(p) + String.format(Locale.ROOT, "%n") : "")
          + "[register] registering the model";
      case "infer" -> String.format(Locale.ROOT, "%s[model]    %s v%d (%s), checkpoint %s%n[infer]    scoring",
          p.getExperimentId().isEmpty() ? dataLine(p) + String.format(Locale.ROOT, "%n") : "",
          p.getModel().getName(), p.getModel().getVersion(), p.getModel().getStage(), p.getModel().getCheckpoint().getUri());
      case "promote" -> String.format(Locale.ROOT, "[infer]    accuracy %.4f on %,d rows, predictions %s @ version %d%n"
          + "%s[promote]  comparing %s v%d with the champion", p.getInference().getAccuracy(),
          p.getInference().getRows(), p.getInference().getPredictions().getUri(), p.getInference().getPredictions().getVersion(),
          driftLine(p), p.getModel().getName(), p.getModel().getVersion());
      default -> "[" + p.getStage() + "]";
    };
  }

  /** The run's drift check, when the request had one (a line with its newline), else nothing. */
  private static String driftLine(PipelineProgress p) {
    if (!p.getInference().hasDrift()) {
      return "";
    }
    var d = p.getInference().getDrift();
    return String.format(Locale.ROOT, "[drift]    %s %.4f %s threshold %.4f: %s%s%n", d.getMeasure(), d.getScore(),
        d.getDrifted() ? ">" : "<=", d.getThreshold(), d.getDrifted() ? "DRIFTED" : "no drift",
        d.getTriggeredSchedule().isEmpty() ? "" : ", triggered schedule " + d.getTriggeredSchedule());
  }

  private static String dataLine(PipelineProgress p) {
    if (!p.hasIngest()) {
      return String.format(Locale.ROOT, "[data]     reusing table %s version %d", p.getData().getUri(), p.getData().getVersion());
    }
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "[etl]      table %s version %d (%,d rows%s)",
        p.getIngest().getTable().getUri(), p.getIngest().getTable().getVersion(), p.getIngest().getRows(),
        p.getIngest().getAlreadyIngested() ? ", already ingested" : ""));
    IngestText.perSplitAndLabel(p.getIngest()).forEach(l -> sb.append(String.format(Locale.ROOT, "%n[etl]      %s", l)));
    p.getIngest().getWarningsList().forEach(w -> sb.append(String.format(Locale.ROOT, "%n[warning]  %s", w)));
    return sb.toString();
  }

  private static String trainedLine(PipelineProgress p) {
    return String.format(Locale.ROOT, "[train]    done: %,d batches in %.0f s, validation accuracy %.4f, loss %.4f",
        p.getTrain().getBatches(), p.getTrain().getSeconds(),
        p.getTrain().getValidationMetricsOrDefault("validation_accuracy", Double.NaN),
        p.getTrain().getValidationMetricsOrDefault("validation_loss", Double.NaN));
  }

  /** The child experiment's trials done and its best metric so far; empty until it answers queries. */
  /**
   * The child experiment's trials done and its best metric so far, and each running trial's training
   * progress (from its Train activity's heartbeat, read from the trial workflow's pending activities).
   */
  private void showSearch(String experimentId) {
    ExperimentState e;
    try {
      e = client.newWorkflowStub(ExperimentWorkflow.class, experimentId).state();
    } catch (WorkflowException | io.grpc.StatusRuntimeException notStartedYet) {
      return;
    }
    if (e.getTrialsCount() == 0) {
      return;
    }
    long done = e.getTrialsList().stream().filter(t -> t.getState() != TrialState.State.ACTIVE).count();
    String best = e.hasBestMetric()
        ? String.format(Locale.ROOT, ", best %s %.4f (trial %d)", e.getMetric(), e.getBestMetric(), e.getBestTrialId()) : "";
    show("search", String.format(Locale.ROOT, "[search]   %d of %d trials done, %.0f%%%s", done, e.getTrialsCount(),
        e.getProgress() * 100, best));
    for (TrialState t : e.getTrialsList()) {
      if (t.getState() != TrialState.State.ACTIVE || t.getWorkflowId().isEmpty()) {
        continue;
      }
      try {
        for (PendingActivityInfo a : describe(t.getWorkflowId()).getPendingActivitiesList()) {
          show("trial-" + t.getTrialId(), activityLine(String.format(Locale.ROOT, "[trial %d] ", t.getTrialId()), a));
        }
      } catch (io.grpc.StatusRuntimeException notStartedYet) {
        // the trial's workflow starts a moment after the experiment lists it
      }
    }
  }

  /** Prints a line of {@code key} when it changed, at most every {@value #EVERY_SECONDS} s per key. */
  private void show(String key, String line) {
    long now = System.nanoTime();
    if (!line.isEmpty() && !line.equals(shown.get(key))
        && (!shownAt.containsKey(key) || now - shownAt.get(key) > EVERY_SECONDS * 1_000_000_000L)) {
      out.println(line);
      shown.put(key, line);
      shownAt.put(key, now);
    }
  }

  private static String activityLine(String prefix, PendingActivityInfo a) {
    String retry = a.getAttempt() > 1 ? " (attempt " + a.getAttempt() + ")" : "";
    if (!a.hasHeartbeatDetails() || a.getHeartbeatDetails().getPayloadsCount() == 0) {
      return "";
    }
    if ("Train".equals(a.getActivityType().getName())) {
      TrainProgress t = KeelDataConverter.get().fromPayloads(0, Optional.of(a.getHeartbeatDetails()),
          TrainProgress.class, TrainProgress.class);
      return String.format(Locale.ROOT, "%sepoch %d  batch %,d/%,d  loss %.4f  %.1f batches/s%s", prefix,
          t.getEpoch(), t.getBatches(), t.getTargetBatches(), t.getLoss(), t.getBatchesPerSecond(), retry);
    }
    return "";
  }
}
