package dev.keel.workflows.experiment;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.activities.catalog.CatalogActivities;
import dev.keel.activities.catalog.CatalogActivityOptions;
import dev.keel.activities.checkpoint.CheckpointGcActivities;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.activities.checkpoint.CheckpointGcActivityOptions;
import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.api.v1.ExperimentCarry;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.GcRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialRequest;
import dev.keel.api.v1.TrialState;
import dev.keel.search.Close;
import dev.keel.search.Create;
import dev.keel.search.ExitReason;
import dev.keel.search.ExperimentConfigs;
import dev.keel.search.Operation;
import dev.keel.search.Searcher;
import dev.keel.search.Searchers;
import dev.keel.search.Shutdown;
import dev.keel.search.ValidateAfter;
import dev.keel.search.ValidatedConfig;
import dev.keel.workflows.KeelSearchAttributes;
import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** See {@link ExperimentWorkflow}. Deterministic: searcher decisions replay from the same events. */
public class ExperimentWorkflowImpl implements ExperimentWorkflow {

  private final Deque<TrialReport> reports = new ArrayDeque<>();
  private final Deque<Operation> operations = new ArrayDeque<>();
  private final Map<Long, TrialState.Builder> trials = new TreeMap<>();
  private final Map<Long, Create> unstarted = new TreeMap<>();
  private final TreeSet<Long> trialsToKill = new TreeSet<>();
  private final TreeSet<Long> closing = new TreeSet<>();
  /** Reports recorded but not yet told to the searcher (while draining for continue-as-new). */
  private final List<TrialReport> deferred = new ArrayList<>();
  private boolean draining;
  private final ExperimentState.Builder state = ExperimentState.newBuilder().setState(ExperimentState.State.ACTIVE);
  private boolean pauseRequested;
  private boolean activateRequested;
  private boolean killRequested;
  private Searcher searcher;
  private ExperimentRequest request;
  private ExperimentConfig config;
  private ExperimentRunOptions options;
  private CatalogBuffer catalog;
  private long trainRows;

  @Override
  public ExperimentResult run(ExperimentRequest input) {
    request = input;
    config = input.getConfig();
    options = ConfigDefaults.withDefaults(input.getOptions());
    String experimentId = Workflow.getInfo().getWorkflowId();
    state.setExperimentId(experimentId).setName(config.getName()).setSearcher(config.getSearcher().getName())
        .setMetric(config.getSearcher().getMetric()).setSmallerIsBetter(config.getSearcher().getSmallerIsBetter());
    catalog = new CatalogBuffer(experimentId, options.getWithoutCatalog() ? null : catalogActivities(),
        options.getCatalogBatchRows(), Workflow::currentTimeMillis);
    if (input.hasCarry()) {
      config = ConfigDefaults.withDefaults(config);
      restore(input.getCarry());
    } else {
      start();
    }
    upsertSearchAttributes();

    while (true) {
      applyOperations();
      applyControl();
      if (finished()) {
        break;
      }
      if (!draining && Workflow.getInfo().getHistoryLength() > options.getContinueAsNewAfterEvents() && !killRequested
          && state.getState() != ExperimentState.State.PAUSED) {
        // Continue as new only when no trial is mid-step: signals that arrive while the closing task
        // completes make the server reject it, so stop handing out work until every trial is idle.
        draining = true;
      }
      if (draining && trials.values().stream().noneMatch(this::busy)) {
        reports.forEach(this::record);
        deferred.addAll(reports);
        reports.clear();
        catalog.flush();
        Workflow.continueAsNew(request.toBuilder().setCarry(carry()).build());
      }
      Workflow.await(() -> !reports.isEmpty() || controlPending());
      // Only the reports that are here now: handling them waits on child starts and signals, during
      // which more arrive, and a busy experiment must still come back to the continue-as-new check.
      List<TrialReport> batch = new ArrayList<>(reports);
      reports.clear();
      for (TrialReport report : batch) {
        record(report);
        if (draining) {
          deferred.add(report);
        } else {
          feed(report);
          applyOperations();
        }
      }
      catalog.flushIfFull();
    }
    state.setState(killRequested ? ExperimentState.State.KILLED : ExperimentState.State.COMPLETED).setProgress(searcher.progress());
    catalog.experiment(state.getState(), request.getConfig(), state.getData());
    collectGarbage();
    catalog.flush();
    upsertSearchAttributes();
    ExperimentResult.Builder result = ExperimentResult.newBuilder().setState(state());
    bestCheckpoint().ifPresent(result::setBestCheckpoint);
    return result.build();
  }

  private void start() {
    ValidatedConfig valid;
    try {
      valid = ExperimentConfigs.validated(config);
    } catch (ConfigValidationException e) {
      state.setState(ExperimentState.State.ERRORED).setError(e.getMessage());
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.INVALID_EXPERIMENT_CONFIG);
    }
    searcher = Searchers.create(valid);
    // validated as submitted, so a default never hides a problem; from here on every setting is explicit
    config = ConfigDefaults.withDefaults(config);
    TableRef data;
    try {
      data = resolveData();
    } catch (ActivityFailure e) {
      // A missing table or version: end ERRORED with the activity's message, in the state query and the catalog.
      String message = TrialWorkflowImpl.rootMessage(e);
      state.setState(ExperimentState.State.ERRORED).setError(message);
      catalog.experiment(ExperimentState.State.ERRORED, request.getConfig(), TableRef.newBuilder().setUri(config.getData().getTable()).build());
      try {
        catalog.flush();
      } catch (ActivityFailure unwritable) {
        // the catalog lives in the same storage; the failure below still says what is wrong
      }
      upsertSearchAttributes();
      throw ApplicationFailure.newNonRetryableFailure(message, FailureTypes.INVALID_EXPERIMENT_DATA);
    }
    state.setData(data);
    catalog.experiment(ExperimentState.State.ACTIVE, request.getConfig(), data);
    operations.addAll(searcher.initialOperations());
  }

  private TableRef resolveData() {
    if (options.getWithoutCatalog()) {
      return TableRef.newBuilder().setUri(config.getData().getTable()).setVersion(config.getData().getVersion()).build();
    }
    DescribeTableRequest.Builder describe = DescribeTableRequest.newBuilder().setTable(config.getData().getTable());
    if (config.getData().hasVersion()) {
      describe.setVersion(config.getData().getVersion());
    }
    DescribeTableResult table = catalogActivities().describeTable(describe.build());
    trainRows = table.getRowsPerSplitOrDefault("train", 0);
    return table.getTable();
  }

  private void restore(ExperimentCarry carry) {
    searcher = Searchers.restore(carry.getSearcherSnapshot());
    for (TrialState t : carry.getTrialsList()) {
      trials.put(t.getTrialId(), t.toBuilder());
    }
    // Recorded by the previous run while it drained; the searcher has not seen them yet.
    carry.getPendingReportsList().forEach(this::feed);
    state.setState(carry.getState()).setData(carry.getData()).setContinuedAsNew(carry.getRuns());
    trainRows = carry.getTrainRows();
    catalog.restore(carry.getCatalogBatches(), carry.getPendingCatalogList());
    killRequested = carry.getState() == ExperimentState.State.KILLED;
  }

  private ExperimentCarry carry() {
    ExperimentCarry.Builder c = ExperimentCarry.newBuilder()
        .setSearcherSnapshot(searcher.snapshot())
        .setState(state.getState())
        .setData(state.getData())
        .setTrainRows(trainRows)
        .setRuns(state.getContinuedAsNew() + 1)
        .setCatalogBatches(catalog.sequence())
        .addAllPendingCatalog(catalog.pending())
        .addAllPendingReports(deferred);
    trials.values().forEach(t -> c.addTrials(t.build()));
    return c.build();
  }

  // ---- searcher operations ----

  private void applyOperations() {
    while (!operations.isEmpty()) {
      Operation op = operations.poll();
      if (killRequested) {
        continue; // a killed experiment starts and extends nothing
      }
      if (op instanceof Create create) {
        unstarted.put(create.trialId(), create);
      } else if (op instanceof ValidateAfter validate) {
        Create create = unstarted.remove(validate.trialId());
        if (create != null) {
          startTrial(create, validate.length());
          operations.addAll(searcher.trialCreated(create.trialId()));
        } else {
          TrialState.Builder t = trials.get(validate.trialId());
          t.setTargetLength(validate.length().toProto());
          command(t, TrialCommand.newBuilder().setTrainToLength(validate.length().toProto()).build());
        }
      } else if (op instanceof Close close) {
        closing.add(close.trialId());
        command(trials.get(close.trialId()), TrialCommand.newBuilder().setClose(true).build());
      } else if (op instanceof Shutdown) {
        state.setProgress(1.0);
      }
    }
    state.setProgress(searcher.progress());
  }

  private void startTrial(Create create, TrainingLength target) {
    String experimentId = state.getExperimentId();
    TrialState.Builder t = TrialState.newBuilder()
        .setTrialId(create.trialId())
        .setWorkflowId(TrialWorkflow.workflowId(experimentId, create.trialId()))
        .setState(TrialState.State.ACTIVE)
        .putAllHparams(create.hparams())
        .setTargetLength(target.toProto())
        .setCompletedLength(TrainingLength.zero(target.unit()).toProto())
        .setGroup(searcher.trialGroup(create.trialId()));
    TrialRequest.Builder r = TrialRequest.newBuilder()
        .setExperimentId(experimentId)
        .setTrialId(create.trialId())
        .setConfig(config)
        .setData(state.getData())
        .setTrainRows(trainRows)
        .putAllHparams(create.hparams())
        .setTargetLength(target.toProto())
        .setHeartbeatTimeoutSeconds(options.getHeartbeatTimeoutSeconds());
    if (create.warmStart().isPresent()) {
      long parent = create.warmStart().get().parentTrialId();
      checkpointAt(parent, create.warmStart().get().parentLength()).ifPresent(c -> {
        r.setStartFrom(c).setParentTrialId(parent);
        t.setSourceCheckpoint(c).setParentTrialId(parent);
      });
    } else if (request.hasWarmStart()) {
      r.setStartFrom(request.getWarmStart());
      t.setSourceCheckpoint(request.getWarmStart());
    }
    trials.put(create.trialId(), t);
    TrialWorkflow child = Workflow.newChildWorkflowStub(TrialWorkflow.class, ChildWorkflowOptions.newBuilder()
        .setWorkflowId(t.getWorkflowId())
        .setTaskQueue(TaskQueues.CONTROL)
        // Trials outlive each run of the experiment: it continues as new while they train.
        .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON)
        .setWorkflowIdReusePolicy(WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE)
        .setStaticSummary("trial " + create.trialId() + " of " + experimentId + " " + create.hparams())
        .build());
    r.setStartPaused(state.getState() == ExperimentState.State.PAUSED);
    Async.function(child::run, r.build());
    Workflow.getWorkflowExecution(child).get();
    catalog.trial(t.build());
  }

  /** The parent's last validated checkpoint at or before {@code length}. */
  private java.util.Optional<CheckpointRef> checkpointAt(long trialId, TrainingLength length) {
    TrialState.Builder parent = trials.get(trialId);
    if (parent == null) {
      return java.util.Optional.empty();
    }
    CheckpointRef found = null;
    for (CheckpointRef c : parent.getCheckpointsList()) {
      if (c.getMetricsOrDefault(CheckpointMetrics.LENGTH, -1) <= length.units()) {
        found = c;
      }
    }
    return java.util.Optional.ofNullable(found);
  }

  private void command(TrialState.Builder trial, TrialCommand command) {
    if (trial == null || TrialStates.isTerminal(trial.getState())) {
      return;
    }
    try {
      Workflow.newExternalWorkflowStub(TrialWorkflow.class, trial.getWorkflowId()).command(command);
    } catch (SignalExternalWorkflowException e) {
      // The trial closed after sending a report this run has not handled yet; that report decides.
    }
  }

  // ---- trial reports ----

  /** Updates what the experiment knows of the trial (and the catalog); the searcher is told in {@link #feed}. */
  private void record(TrialReport report) {
    TrialState.Builder t = trials.get(report.getTrialId());
    if (t == null) {
      return;
    }
    switch (report.getEventCase()) {
      case VALIDATION -> {
        TrialReport.Validation v = report.getValidation();
        CheckpointRef checkpoint = v.getCheckpoint().toBuilder()
            .putMetrics(CheckpointMetrics.SEARCHER_METRIC, v.getMetric())
            .putMetrics(CheckpointMetrics.LENGTH, TrainingLength.of(v.getLength()).units()).build();
        t.setCompletedLength(v.getLength()).setLatestMetric(v.getMetric()).setLatestCheckpoint(checkpoint)
            .addCheckpoints(checkpoint).addAllPeriodicCheckpoints(v.getPeriodicCheckpointsList())
            .setRestarts(v.getRestarts());
        if (!t.hasBestMetric() || better(v.getMetric(), t.getBestMetric())) {
          t.setBestMetric(v.getMetric());
        }
        catalog.validation(t.getTrialId(), v);
      }
      case EXIT -> {
        TrialReport.Exit exit = report.getExit();
        t.setState(TrialStates.afterExit(exit.getReason())).setError(exit.getMessage()).setRestarts(exit.getRestarts())
            .addAllPeriodicCheckpoints(exit.getWrittenCheckpointsList());
        catalog.periodicCheckpoints(t.getTrialId(), exit.getWrittenCheckpointsList());
        catalog.trial(t.build());
      }
      case CLOSED -> {
        t.setState(TrialState.State.COMPLETED);
        closing.remove(t.getTrialId());
        catalog.trial(t.build());
      }
      case EVENT_NOT_SET -> { }
    }
    updateBest();
  }

  /** Tells the searcher; its answers join {@link #operations}. */
  private void feed(TrialReport report) {
    long trialId = report.getTrialId();
    if (killRequested || !trials.containsKey(trialId)) {
      return; // a killed experiment asks its searcher nothing more
    }
    switch (report.getEventCase()) {
      case VALIDATION -> {
        if (!report.getIntermediate()) {
          operations.addAll(searcher.validationCompleted(trialId, report.getValidation().getMetric(),
              TrainingLength.of(report.getValidation().getLength())));
        }
      }
      case EXIT -> {
        if (!searcher.isShutdown()) {
          operations.addAll(searcher.trialExitedEarly(trialId, ExitReason.of(report.getExit().getReason())));
        }
      }
      case CLOSED -> operations.addAll(searcher.trialClosed(trialId));
      case EVENT_NOT_SET -> { }
    }
  }

  /** A trial that will still signal: training toward its target, or asked to close. */
  private boolean busy(TrialState.Builder t) {
    return !TrialStates.isTerminal(t.getState())
        && (TrainingLength.of(t.getCompletedLength()).isShorterThan(TrainingLength.of(t.getTargetLength()))
            || closing.contains(t.getTrialId()));
  }

  private boolean better(double a, double b) {
    return config.getSearcher().getSmallerIsBetter() ? a < b : a > b;
  }

  private void updateBest() {
    for (TrialState.Builder t : trials.values()) {
      if (t.hasBestMetric() && (!state.hasBestMetric() || better(t.getBestMetric(), state.getBestMetric()))) {
        state.setBestMetric(t.getBestMetric()).setBestTrialId(t.getTrialId());
      }
    }
  }

  private java.util.Optional<CheckpointRef> bestCheckpoint() {
    CheckpointRef best = null;
    for (TrialState.Builder t : trials.values()) {
      for (CheckpointRef c : t.getCheckpointsList()) {
        double m = c.getMetricsOrDefault(CheckpointMetrics.SEARCHER_METRIC, Double.NaN);
        if (best == null || better(m, best.getMetricsOrDefault(CheckpointMetrics.SEARCHER_METRIC, Double.NaN))) {
          best = c;
        }
      }
    }
    return java.util.Optional.ofNullable(best);
  }

  // ---- control ----

  private boolean controlPending() {
    return pauseRequested || activateRequested || (killRequested && state.getState() != ExperimentState.State.KILLED)
        || !trialsToKill.isEmpty();
  }

  private void applyControl() {
    if (killRequested && state.getState() != ExperimentState.State.KILLED) {
      state.setState(ExperimentState.State.KILLED);
      unstarted.clear();
      trials.values().forEach(t -> command(t, TrialCommand.newBuilder().setKill(true).build()));
      upsertSearchAttributes();
    }
    while (!trialsToKill.isEmpty()) {
      command(trials.get(trialsToKill.pollFirst()), TrialCommand.newBuilder().setKill(true).build());
    }
    if (pauseRequested) {
      pauseRequested = false;
      if (state.getState() == ExperimentState.State.ACTIVE) {
        state.setState(ExperimentState.State.PAUSED);
        trials.values().forEach(t -> command(t, TrialCommand.newBuilder().setPause(true).build()));
        upsertSearchAttributes();
      }
    }
    if (activateRequested) {
      activateRequested = false;
      if (state.getState() == ExperimentState.State.PAUSED) {
        state.setState(ExperimentState.State.ACTIVE);
        trials.values().forEach(t -> command(t, TrialCommand.newBuilder().setActivate(true).build()));
        upsertSearchAttributes();
      }
    }
  }

  private boolean finished() {
    boolean allDone = trials.values().stream().allMatch(t -> TrialStates.isTerminal(t.getState())) && unstarted.isEmpty();
    return allDone && (killRequested || searcher.isShutdown());
  }

  @Override
  public void report(TrialReport report) {
    reports.add(report);
  }

  @Override
  public void pause() {
    pauseRequested = true;
  }

  @Override
  public void activate() {
    activateRequested = true;
  }

  @Override
  public void kill() {
    killRequested = true;
  }

  @Override
  public void killTrial(long trialId) {
    trialsToKill.add(trialId);
  }

  @Override
  public ExperimentState state() {
    ExperimentState.Builder s = state.clone().clearTrials();
    trials.values().forEach(t -> s.addTrials(t.build()));
    return s.build();
  }

  // ---- catalog, GC, visibility ----

  private void collectGarbage() {
    if (options.getWithoutCatalog()) {
      return;
    }
    List<TrialState> all = trials.values().stream().map(TrialState.Builder::build).toList();
    List<CheckpointRef> delete = new CheckpointGcPolicy(config.getCheckpointStorage(), config.getSearcher().getSmallerIsBetter()).delete(all);
    if (delete.isEmpty()) {
      return;
    }
    try {
      Workflow.newActivityStub(CheckpointGcActivities.class,
              CheckpointGcActivityOptions.forCollection("collect " + delete.size() + " checkpoints"))
          .collect(GcRequest.newBuilder().setExperimentId(state.getExperimentId()).addAllDelete(delete)
              .setCheckpointRoot(config.getCheckpointStorage().getStoragePath()).build());
    } catch (ActivityFailure e) {
      // Housekeeping: a refused or failed deletion keeps the checkpoints (and no DELETED rows), not fail the search.
      Workflow.getLogger(ExperimentWorkflowImpl.class).warn("checkpoint GC of {} failed: {}", state.getExperimentId(),
          TrialWorkflowImpl.rootMessage(e));
      return;
    }
    catalog.deleted(delete);
  }

  private CatalogActivities catalogActivities() {
    return Workflow.newActivityStub(CatalogActivities.class, CatalogActivityOptions.forCatalog("catalog"));
  }

  private void upsertSearchAttributes() {
    List<io.temporal.common.SearchAttributeUpdate<?>> updates = new ArrayList<>();
    updates.add(KeelSearchAttributes.EXPERIMENT.valueSet(config.getName().isEmpty() ? state.getExperimentId() : config.getName()));
    updates.add(KeelSearchAttributes.STATE.valueSet(state.getState().name()));
    updates.add(KeelSearchAttributes.DATA_VERSION.valueSet(state.getData().getVersion()));
    if (state.hasBestMetric()) {
      updates.add(KeelSearchAttributes.BEST_METRIC.valueSet(state.getBestMetric()));
    }
    Workflow.upsertTypedSearchAttributes(updates.toArray(new io.temporal.common.SearchAttributeUpdate<?>[0]));
  }
}
