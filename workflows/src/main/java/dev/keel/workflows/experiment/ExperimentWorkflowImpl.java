package dev.keel.workflows.experiment;

import dev.keel.activities.FailureTypes;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.api.v1.ExperimentCarry;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialReport;
import dev.keel.search.ExperimentConfigs;
import dev.keel.search.Searcher;
import dev.keel.search.Searchers;
import dev.keel.search.ValidatedConfig;
import dev.keel.search.spec.SearchSetup;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * See {@link ExperimentWorkflow}. The main loop: wires the {@link TrialBook}, the {@link
 * SearcherDriver}, the {@link ExperimentControl} and the {@link ExperimentHousekeeping}, and drains
 * before continuing as new. Deterministic: searcher decisions replay from the same events.
 */
public class ExperimentWorkflowImpl implements ExperimentWorkflow {
  /**
   * The change that gave {@code max_concurrent_trials: 0} written out Determined's meaning instead
   * of the default's.
   */
  static final String ZERO_CONCURRENCY_AS_DETERMINED = "max-concurrent-trials-zero-as-determined";

  private final Deque<TrialReport> reports = new ArrayDeque<>();
  private final ExperimentControl control = new ExperimentControl();

  /**
   * Id, name, searcher, metric, data, runs and error; the parts that change live in the
   * collaborators.
   */
  private final ExperimentState.Builder about = ExperimentState.newBuilder();

  private ExperimentRequest request;
  private ExperimentConfig config;
  private ExperimentRunOptions options;
  private TrialBook book;
  private SearcherDriver driver;
  private ExperimentHousekeeping housekeeping;
  private long trainRows;
  private boolean draining;

  @Override
  public ExperimentResult run(ExperimentRequest input) {
    request = input;
    config = input.getConfig();
    options = ConfigDefaults.withDefaults(input.getOptions());
    String experimentId = Workflow.getInfo().getWorkflowId();
    about
        .setExperimentId(experimentId)
        .setName(config.getName())
        .setSearcher(config.getSearcher().getName())
        .setMetric(config.getSearcher().getMetric())
        .setSmallerIsBetter(config.getSearcher().getSmallerIsBetter())
        .setSubmittedBy(input.getSubmittedBy())
        .setResourcePool(
            config.getResources().getResourcePool().isBlank()
                ? ConfigDefaults.RESOURCE_POOL
                : config.getResources().getResourcePool());
    book = new TrialBook(config.getSearcher().getSmallerIsBetter());
    housekeeping = new ExperimentHousekeeping(experimentId, options);
    if (input.hasCarry()) {
      restore(input.getCarry());
    } else {
      start();
    }
    housekeeping.upsertSearchAttributes(summary());

    while (true) {
      driver.applyOperations();
      control.apply(controlEffects());
      if (driver.searchOver()) {
        break;
      }
      if (!draining
          && Workflow.getInfo().getHistoryLength() > options.getContinueAsNewAfterEvents()
          && !control.killRequested()
          && !control.paused()) {
        // Continue as new only when no trial is mid-step: signals that arrive while the closing
        // task
        // completes make the server reject it, so stop handing out work until every trial is idle.
        draining = true;
      }
      if (draining && !book.anyBusy()) {
        continueAsNew();
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
      about.setError(failure.get());
    }
    housekeeping.catalog().experiment(control.state(), request.getConfig(), about.getData());
    housekeeping.collectGarbage(book.snapshot(), config);
    housekeeping.flush();
    housekeeping.upsertSearchAttributes(summary());
    ExperimentResult.Builder result = ExperimentResult.newBuilder().setState(state());
    book.bestCheckpoint().ifPresent(result::setBestCheckpoint);
    return result.build();
  }

  private void start() {
    if (SearchSetup.zeroConcurrency(config.getSearcher())
        && Workflow.getVersion(ZERO_CONCURRENCY_AS_DETERMINED, Workflow.DEFAULT_VERSION, 1)
            == Workflow.DEFAULT_VERSION) {
      // started when 0 meant the unset default: the searcher keeps that (its snapshots carry this
      // config)
      config =
          config.toBuilder()
              .setSearcher(config.getSearcher().toBuilder().clearMaxConcurrentTrials())
              .build();
    }
    ValidatedConfig valid;
    try {
      valid = ExperimentConfigs.validated(config);
    } catch (ConfigValidationException e) {
      control.failed();
      about.setError(e.getMessage());
      throw ApplicationFailure.newNonRetryableFailure(
          e.getMessage(), FailureTypes.INVALID_EXPERIMENT_CONFIG);
    }
    Searcher searcher = Searchers.create(valid);
    // validated as submitted, so a default never hides a problem; from here on every setting is
    // explicit
    config = ConfigDefaults.withDefaults(config);
    TableRef data;
    String unusable;
    try {
      data = resolveData();
      unusable =
          !options.getWithoutCatalog() && trainRows == 0
              ? "table "
                  + data.getUri()
                  + " version "
                  + data.getVersion()
                  + " has no rows in the train split: nothing to train on"
              : null;
    } catch (ActivityFailure e) {
      data = TableRef.newBuilder().setUri(config.getData().getTable()).build();
      unusable = ActivityFailures.rootMessage(e);
    }
    if (unusable != null) {
      // A missing table or version, or an empty one: end ERRORED with why, in the state query and
      // the catalog.
      String message = unusable;
      control.failed();
      about.setError(message);
      housekeeping.catalog().experiment(control.state(), request.getConfig(), data);
      housekeeping.flushBeforeFailing();
      housekeeping.upsertSearchAttributes(summary());
      throw ApplicationFailure.newNonRetryableFailure(
          message, FailureTypes.INVALID_EXPERIMENT_DATA);
    }
    about.setData(data);
    housekeeping.catalog().experiment(ExperimentState.State.ACTIVE, request.getConfig(), data);
    driver = newDriver(searcher);
    driver.begin();
  }

  private TableRef resolveData() {
    if (options.getWithoutCatalog()) {
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
    trainRows = table.getRowsPerSplitOrDefault(Splits.TRAIN, 0);
    return table.getTable();
  }

  private void restore(ExperimentCarry carry) {
    // validated when the experiment began; the carried request holds the config as submitted
    config = ConfigDefaults.withDefaults(config);
    about.setData(carry.getData()).setContinuedAsNew(carry.getRuns());
    trainRows = carry.getTrainRows();
    book.restore(carry.getTrialsList());
    driver = newDriver(Searchers.restore(carry.getSearcherSnapshot()));
    // Recorded by the previous run while it drained; the searcher has not seen them yet.
    driver.resume(carry.getPendingReportsList());
    control.restore(carry.getState());
    housekeeping.catalog().restore(carry.getCatalogBatches(), carry.getPendingCatalogList());
  }

  private SearcherDriver newDriver(Searcher searcher) {
    SearcherDriver.TrialSetup setup =
        new SearcherDriver.TrialSetup(
            about.getExperimentId(),
            config,
            about.getData(),
            trainRows,
            options.getHeartbeatTimeoutSeconds(),
            request.hasWarmStart() ? Optional.of(request.getWarmStart()) : Optional.empty());
    return new SearcherDriver(
        searcher, setup, book, control, housekeeping.catalog(), new ChildTrialWorkflows());
  }

  private void continueAsNew() {
    for (TrialReport report : reports) {
      book.record(report, housekeeping.catalog());
      driver.defer(report);
    }
    reports.clear();
    housekeeping.flush();
    CatalogBuffer catalog = housekeeping.catalog();
    ExperimentCarry carry =
        ExperimentCarry.newBuilder()
            .setSearcherSnapshot(driver.searcherSnapshot())
            .setState(control.state())
            .setData(about.getData())
            .setTrainRows(trainRows)
            .setRuns(about.getContinuedAsNew() + 1)
            .setCatalogBatches(catalog.sequence())
            .addAllPendingCatalog(catalog.pending())
            .addAllPendingReports(driver.deferred())
            .addAllTrials(book.snapshot())
            .build();
    Workflow.continueAsNew(request.toBuilder().setCarry(carry).build());
  }

  private ExperimentControl.Effects controlEffects() {
    return new ExperimentControl.Effects() {
      @Override
      public void commandAll(TrialCommand command) {
        driver.commandAll(command);
      }

      @Override
      public void command(long trialId, TrialCommand command) {
        driver.command(trialId, command);
      }

      @Override
      public void forgetUnstartedTrials() {
        driver.forgetUnstartedTrials();
      }

      @Override
      public void stateChanged() {
        housekeeping.upsertSearchAttributes(summary());
      }
    };
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
    ExperimentState.Builder s = summary().toBuilder();
    if (book != null) {
      s.addAllTrials(book.snapshot());
    }
    if (driver != null) {
      s.addAllBrackets(driver.brackets());
    }
    return s.build();
  }

  @Override
  public CatalogAppend pendingCatalog() {
    CatalogAppend.Builder out = CatalogAppend.newBuilder().setExperimentId(about.getExperimentId());
    if (housekeeping != null) {
      out.setSequence(housekeeping.catalog().sequence())
          .addAllRows(housekeeping.catalog().pending());
    }
    return out.build();
  }

  /** The experiment without its trials. */
  private ExperimentState summary() {
    ExperimentState.Builder s = about.clone().setState(control.state());
    if (driver != null) {
      s.setProgress(driver.progress());
    }
    Optional<TrialBook.Best> best = book == null ? Optional.empty() : book.best();
    if (best.isPresent()) {
      s.setBestMetric(best.get().metric()).setBestTrialId(best.get().trialId());
    }
    return s.build();
  }
}
