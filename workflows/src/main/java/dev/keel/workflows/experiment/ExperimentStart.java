package dev.keel.workflows.experiment;

import dev.keel.activities.FailureTypes;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TableRef;
import dev.keel.search.ExperimentConfigs;
import dev.keel.search.Searcher;
import dev.keel.search.Searchers;
import dev.keel.search.ValidatedConfig;
import dev.keel.search.spec.SearchSetup;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;

/**
 * The first run of an experiment: its config checked (the only time: a continue-as-new restores a
 * searcher built from a checked config), its data table pinned at a version, and the searcher's
 * first trials. A config or a table that cannot work ends the experiment ERRORED, saying why, in
 * the state query, the catalog and the failure.
 */
final class ExperimentStart {
  /**
   * The change that gave {@code max_concurrent_trials: 0} written out Determined's meaning instead
   * of the default's.
   */
  static final String ZERO_CONCURRENCY_AS_DETERMINED = "max-concurrent-trials-zero-as-determined";

  private ExperimentStart() {}

  static void start(ExperimentRun run) {
    if (SearchSetup.zeroConcurrency(run.config.getSearcher())
        && Workflow.getVersion(ZERO_CONCURRENCY_AS_DETERMINED, Workflow.DEFAULT_VERSION, 1)
            == Workflow.DEFAULT_VERSION) {
      // started when 0 meant the unset default: the searcher keeps that (its snapshots carry this
      // config)
      run.config =
          run.config.toBuilder()
              .setSearcher(run.config.getSearcher().toBuilder().clearMaxConcurrentTrials())
              .build();
    }
    ValidatedConfig valid;
    try {
      valid = ExperimentConfigs.validated(run.config);
    } catch (ConfigValidationException e) {
      run.control.failed();
      run.about.setError(e.getMessage());
      throw ApplicationFailure.newNonRetryableFailure(
          e.getMessage(), FailureTypes.INVALID_EXPERIMENT_CONFIG);
    }
    Searcher searcher = Searchers.create(valid);
    // validated as submitted, so a default never hides a problem; from here on every setting is
    // explicit
    run.config = ConfigDefaults.withDefaults(run.config);
    TableRef data;
    String unusable;
    try {
      data = pinData(run);
      unusable =
          !run.options.getWithoutCatalog() && run.trainRows == 0
              ? "table "
                  + data.getUri()
                  + " version "
                  + data.getVersion()
                  + " has no rows in the train split: nothing to train on"
              : null;
    } catch (ActivityFailure e) {
      data = TableRef.newBuilder().setUri(run.config.getData().getTable()).build();
      unusable = ActivityFailures.rootMessage(e);
    }
    if (unusable != null) {
      // A missing table or version, or an empty one: end ERRORED with why, in the state query and
      // the catalog.
      run.control.failed();
      run.about.setError(unusable);
      run.housekeeping.catalog().experiment(run.control.state(), run.request.getConfig(), data);
      run.housekeeping.flushBeforeFailing();
      run.upsertSearchAttributes();
      throw ApplicationFailure.newNonRetryableFailure(
          unusable, FailureTypes.INVALID_EXPERIMENT_DATA);
    }
    run.about.setData(data);
    run.housekeeping
        .catalog()
        .experiment(ExperimentState.State.ACTIVE, run.request.getConfig(), data);
    run.drive(searcher);
    run.driver.begin();
  }

  /**
   * The data table at the version the config names, else its latest, and the rows of its train
   * split; as the config names it when the experiment keeps no catalog.
   */
  private static TableRef pinData(ExperimentRun run) {
    ExperimentConfig config = run.config;
    if (run.options.getWithoutCatalog()) {
      return TableRef.newBuilder()
          .setUri(config.getData().getTable())
          .setVersion(config.getData().getVersion())
          .build();
    }
    DescribeTableRequest.Builder describe =
        DescribeTableRequest.newBuilder().setTable(config.getData().getTable());
    if (config.getData().hasVersion()) {
      describe.setVersion(config.getData().getVersion());
    }
    DescribeTableResult table =
        ExperimentHousekeeping.catalogActivities().describeTable(describe.build());
    run.trainRows = table.getRowsPerSplitOrDefault(Splits.TRAIN, 0);
    return table.getTable();
  }
}
