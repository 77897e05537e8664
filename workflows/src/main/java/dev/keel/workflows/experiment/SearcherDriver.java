package dev.keel.workflows.experiment;

import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.SearcherBracket;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialRequest;
import dev.keel.api.v1.TrialState;
import dev.keel.search.BracketRungs;
import dev.keel.search.Close;
import dev.keel.search.Create;
import dev.keel.search.ExitReason;
import dev.keel.search.Operation;
import dev.keel.search.Searcher;
import dev.keel.search.ValidateAfter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Runs the searcher: carries out its operations on trials and tells it what they report. The one
 * place where a {@link ValidateAfter} becomes a trial's start or its next target length. Temporal
 * calls go through {@link TrialWorkflows}; the rest is plain code, replayed identically.
 */
final class SearcherDriver {

  /** What every trial's request takes from its experiment. */
  record TrialSetup(
      String experimentId,
      ExperimentConfig config,
      TableRef data,
      long trainRows,
      int heartbeatTimeoutSeconds,
      Optional<CheckpointRef> warmStart) {}

  private final Searcher searcher;
  private final TrialSetup setup;
  private final TrialBook book;
  private final ExperimentControl control;
  private final CatalogBuffer catalog;
  private final TrialWorkflows workflows;
  private final Deque<Operation> operations = new ArrayDeque<>();

  /**
   * Created by the searcher, started at their first ValidateAfter, which brings the target length.
   */
  private final Map<Long, Create> unstarted = new TreeMap<>();

  /** Recorded in the book but not yet told to the searcher (while draining for continue-as-new). */
  private final List<TrialReport> deferred = new ArrayList<>();

  private double progress;

  SearcherDriver(
      Searcher searcher,
      TrialSetup setup,
      TrialBook book,
      ExperimentControl control,
      CatalogBuffer catalog,
      TrialWorkflows workflows) {
    this.searcher = searcher;
    this.setup = setup;
    this.book = book;
    this.control = control;
    this.catalog = catalog;
    this.workflows = workflows;
  }

  /** A new search: queues the searcher's first operations. */
  void begin() {
    operations.addAll(searcher.initialOperations());
  }

  /** A search continued as new: tells the searcher the reports the previous run deferred. */
  void resume(List<TrialReport> deferredByPreviousRun) {
    deferredByPreviousRun.forEach(this::feed);
  }

  /** Carries out the queued operations and those the searcher answers with, until none is left. */
  void applyOperations() {
    while (!operations.isEmpty()) {
      Operation op = operations.poll();
      if (control.killRequested()) {
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
          book.get(validate.trialId()).setTargetLength(validate.length().toProto());
          command(
              validate.trialId(),
              TrialCommand.newBuilder().setTrainToLength(validate.length().toProto()).build());
        }
      } else if (op instanceof Close close) {
        book.closing(close.trialId());
        command(close.trialId(), TrialCommand.newBuilder().setClose(true).build());
      }
      // Shutdown needs nothing done: searchOver() reads it from the searcher.
    }
    progress = searcher.progress();
  }

  /** Tells the searcher a report the book has recorded, and carries out what it answers. */
  void tell(TrialReport report) {
    feed(report);
    applyOperations();
  }

  /**
   * Keeps a recorded report for the next run: the searcher must not answer while the experiment
   * drains.
   */
  void defer(TrialReport report) {
    deferred.add(report);
  }

  void command(long trialId, TrialCommand command) {
    book.listening(trialId).ifPresent(workflowId -> workflows.command(workflowId, command));
  }

  void commandAll(TrialCommand command) {
    book.ids().forEach(id -> command(id, command));
  }

  void forgetUnstartedTrials() {
    unstarted.clear();
  }

  /**
   * Every trial ended, none waits to start, and the searcher shut down or the user killed the
   * experiment.
   */
  boolean searchOver() {
    return book.allEnded()
        && unstarted.isEmpty()
        && (control.killRequested() || searcher.isShutdown());
  }

  /** As of the last {@link #applyOperations}. */
  double progress() {
    return progress;
  }

  /**
   * The searcher's rungs per bracket with its decisions, for the state query (reads, changes
   * nothing).
   */
  List<SearcherBracket> brackets() {
    LengthUnit unit = TrainingLength.of(setup.config().getSearcher().getMaxLength()).unit();
    List<SearcherBracket> out = new ArrayList<>();
    for (BracketRungs bracket : searcher.rungs()) {
      SearcherBracket.Builder b = SearcherBracket.newBuilder().setGroup(bracket.group());
      for (BracketRungs.Rung rung : bracket.rungs()) {
        SearcherBracket.Rung.Builder r =
            b.addRungsBuilder().setLength(new TrainingLength(rung.length(), unit).toProto());
        rung.trials()
            .forEach(
                m ->
                    r.addTrialsBuilder()
                        .setTrialId(m.trialId())
                        .setOutcome(SearcherBracket.Member.Outcome.valueOf(m.outcome().name())));
      }
      out.add(b.build());
    }
    return out;
  }

  String searcherSnapshot() {
    return searcher.snapshot();
  }

  List<TrialReport> deferred() {
    return List.copyOf(deferred);
  }

  private void feed(TrialReport report) {
    long trialId = report.getTrialId();
    if (control.killRequested() || !book.contains(trialId)) {
      return; // a killed experiment asks its searcher nothing more
    }
    switch (report.getEventCase()) {
      case VALIDATION -> {
        if (!report.getIntermediate()) {
          operations.addAll(
              searcher.validationCompleted(
                  trialId,
                  report.getValidation().getMetric(),
                  TrainingLength.of(report.getValidation().getLength())));
        }
      }
      case EXIT -> {
        if (!searcher.isShutdown()) {
          operations.addAll(
              searcher.trialExitedEarly(trialId, ExitReason.of(report.getExit().getReason())));
        }
      }
      case CLOSED -> operations.addAll(searcher.trialClosed(trialId));
      case EVENT_NOT_SET -> {}
    }
  }

  private void startTrial(Create create, TrainingLength target) {
    String experimentId = setup.experimentId();
    TrialState.Builder t =
        TrialState.newBuilder()
            .setTrialId(create.trialId())
            .setWorkflowId(TrialWorkflow.workflowId(experimentId, create.trialId()))
            .setState(TrialState.State.ACTIVE)
            .putAllHparams(create.hparams())
            .setTargetLength(target.toProto())
            .setCompletedLength(TrainingLength.zero(target.unit()).toProto())
            .setGroup(searcher.trialGroup(create.trialId()));
    TrialRequest.Builder r =
        TrialRequest.newBuilder()
            .setExperimentId(experimentId)
            .setTrialId(create.trialId())
            .setConfig(setup.config())
            .setData(setup.data())
            .setTrainRows(setup.trainRows())
            .putAllHparams(create.hparams())
            .setTargetLength(target.toProto())
            .setHeartbeatTimeoutSeconds(setup.heartbeatTimeoutSeconds())
            .setStartPaused(control.paused());
    if (create.warmStart().isPresent()) {
      long parent = create.warmStart().get().parentTrialId();
      book.checkpointAt(parent, create.warmStart().get().parentLength())
          .ifPresent(
              c -> {
                r.setStartFrom(c).setParentTrialId(parent);
                t.setSourceCheckpoint(c).setParentTrialId(parent);
              });
    } else if (setup.warmStart().isPresent()) {
      r.setStartFrom(setup.warmStart().get());
      t.setSourceCheckpoint(setup.warmStart().get());
    }
    book.add(t.setSlots(setup.config().getResources().getSlotsPerTrial()));
    workflows.start(
        t.getWorkflowId(),
        r.build(),
        "trial " + create.trialId() + " of " + experimentId + " " + create.hparams());
    catalog.trial(t.build());
  }
}
