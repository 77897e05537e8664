package dev.keel.workflows.experiment;

import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialReport;
import io.temporal.workflow.Workflow;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * See {@link ExperimentWorkflow}. The main loop: starts ({@link ExperimentStart}) or restores
 * ({@link ExperimentCarryOver}) the run, then hands trial reports to the {@link TrialBook} and the
 * {@link SearcherDriver} and the user's requests to the {@link ExperimentControl}, and drains
 * before continuing as new. Deterministic: searcher decisions replay from the same events.
 */
public class ExperimentWorkflowImpl implements ExperimentWorkflow {
  private final Deque<TrialReport> reports = new ArrayDeque<>();
  private final ExperimentControl control = new ExperimentControl();

  /** Null until the workflow method runs. */
  private ExperimentRun run;

  private boolean draining;

  @Override
  public ExperimentResult run(ExperimentRequest input) {
    run = new ExperimentRun(input, control);
    if (input.hasCarry()) {
      ExperimentCarryOver.restore(run, input.getCarry());
    } else {
      ExperimentStart.start(run);
    }
    run.upsertSearchAttributes();

    SearcherDriver driver = run.driver;
    ExperimentHousekeeping housekeeping = run.housekeeping;
    TrialBook book = run.book;
    while (true) {
      driver.applyOperations();
      control.apply(run.controlEffects());
      if (driver.searchOver()) {
        break;
      }
      if (!draining
          && Workflow.getInfo().getHistoryLength() > run.options.getContinueAsNewAfterEvents()
          && !control.killRequested()
          && !control.paused()) {
        // Continue as new only when no trial is mid-step: signals that arrive while the closing
        // task completes make the server reject it, so stop handing out work until every trial is
        // idle.
        draining = true;
      }
      if (draining && !book.anyBusy()) {
        ExperimentCarryOver.continueAsNew(run, reports);
      }
      Workflow.await(() -> !reports.isEmpty() || control.pending());
      // Only the reports that are here now: handling them waits on child starts and signals, during
      // which more arrive, and a busy experiment must still come back to the continue-as-new check.
      List<TrialReport> batch = new ArrayList<>(reports);
      reports.clear();
      for (TrialReport report : batch) {
        book.record(report, housekeeping.catalog());
        if (draining) {
          driver.defer(report);
        } else {
          driver.tell(report);
        }
      }
      housekeeping.flushIfFull();
    }
    Optional<String> failure = book.failure();
    control.finish(failure.isPresent());
    if (control.state() == ExperimentState.State.ERRORED) {
      run.about.setError(failure.get());
    }
    housekeeping.catalog().experiment(control.state(), input.getConfig(), run.about.getData());
    housekeeping.collectGarbage(book.snapshot(), run.config);
    housekeeping.flush();
    run.upsertSearchAttributes();
    ExperimentResult.Builder result = ExperimentResult.newBuilder().setState(state());
    book.bestCheckpoint().ifPresent(result::setBestCheckpoint);
    return result.build();
  }

  @Override
  public void report(TrialReport report) {
    reports.add(report);
  }

  @Override
  public void pause() {
    control.pause();
  }

  @Override
  public void activate() {
    control.activate();
  }

  @Override
  public void kill() {
    control.kill();
  }

  @Override
  public void killTrial(long trialId) {
    control.killTrial(trialId);
  }

  @Override
  public ExperimentState state() {
    return run == null
        ? ExperimentState.newBuilder().setState(control.state()).build()
        : run.state();
  }

  @Override
  public CatalogAppend pendingCatalog() {
    return run == null ? CatalogAppend.getDefaultInstance() : run.pendingCatalog();
  }
}
