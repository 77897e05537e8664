package dev.keel.workflows.experiment;

import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.ExperimentCarry;
import dev.keel.api.v1.TrialReport;
import dev.keel.search.Searchers;
import io.temporal.workflow.Workflow;
import java.util.Collection;

/**
 * What crosses a continue-as-new, both ways: the searcher's snapshot, the lifecycle state, the
 * pinned data, the trials, the catalog's unflushed rows and batch sequence, and the reports the
 * searcher has not seen yet.
 */
final class ExperimentCarryOver {
  private ExperimentCarryOver() {}

  /** The run after a continue-as-new takes up where the last one stopped. */
  static void restore(ExperimentRun run, ExperimentCarry carry) {
    // validated when the experiment began; the carried request holds the config as submitted
    run.config = ConfigDefaults.withDefaults(run.config);
    run.about.setData(carry.getData()).setContinuedAsNew(carry.getRuns());
    run.trainRows = carry.getTrainRows();
    run.book.restore(carry.getTrialsList());
    run.drive(Searchers.restore(carry.getSearcherSnapshot()));
    // Recorded by the previous run while it drained; the searcher has not seen them yet.
    run.driver.resume(carry.getPendingReportsList());
    run.control.restore(carry.getState());
    run.housekeeping.catalog().restore(carry.getCatalogBatches(), carry.getPendingCatalogList());
  }

  /**
   * Ends this run and starts the next with the carry; {@code arrived} are the reports that came in
   * since the loop last took them, which the next run's searcher hears about.
   */
  static void continueAsNew(ExperimentRun run, Collection<TrialReport> arrived) {
    CatalogBuffer catalog = run.housekeeping.catalog();
    for (TrialReport report : arrived) {
      run.book.record(report, catalog);
      run.driver.defer(report);
    }
    arrived.clear();
    run.housekeeping.flush();
    ExperimentCarry carry =
        ExperimentCarry.newBuilder()
            .setSearcherSnapshot(run.driver.searcherSnapshot())
            .setState(run.control.state())
            .setData(run.about.getData())
            .setTrainRows(run.trainRows)
            .setRuns(run.about.getContinuedAsNew() + 1)
            .setCatalogBatches(catalog.sequence())
            .addAllPendingCatalog(catalog.pending())
            .addAllPendingReports(run.driver.deferred())
            .addAllTrials(run.book.snapshot())
            .build();
    Workflow.continueAsNew(run.request.toBuilder().setCarry(carry).build());
  }
}
