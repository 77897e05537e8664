package dev.keel.workflows.experiment;

import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialCommand;
import dev.keel.search.Searcher;
import io.temporal.workflow.Workflow;
import java.util.Optional;

/**
 * One run of an experiment workflow as its parts see it: the request, the config, the
 * collaborators, and the experiment as the state query and the search attributes show it. A
 * continue-as-new starts the next run with a new one, restored from the carry ({@link
 * ExperimentCarryOver}).
 */
final class ExperimentRun {
  final ExperimentRequest request;

  /** With {@code ConfigDefaults} applied. */
  final ExperimentRunOptions options;

  final ExperimentControl control;
  final TrialBook book;
  final ExperimentHousekeeping housekeeping;

  /**
   * Id, name, searcher, metric, data, runs and error; the parts that change live in the
   * collaborators.
   */
  final ExperimentState.Builder about = ExperimentState.newBuilder();

  /** As submitted until the first run validated it; from then on with every default written out. */
  ExperimentConfig config;

  /** Null until the run started or restored its searcher. */
  SearcherDriver driver;

  /** Rows in the data's train split, which trials need to turn epochs into batches. */
  long trainRows;

  ExperimentRun(ExperimentRequest request, ExperimentControl control) {
    this.request = request;
    this.control = control;
    config = request.getConfig();
    options = ConfigDefaults.withDefaults(request.getOptions());
    String experimentId = Workflow.getInfo().getWorkflowId();
    about
        .setExperimentId(experimentId)
        .setName(config.getName())
        .setSearcher(config.getSearcher().getName())
        .setMetric(config.getSearcher().getMetric())
        .setSmallerIsBetter(config.getSearcher().getSmallerIsBetter())
        .setSubmittedBy(request.getSubmittedBy())
        .setResourcePool(
            config.getResources().getResourcePool().isBlank()
                ? ConfigDefaults.RESOURCE_POOL
                : config.getResources().getResourcePool());
    book = new TrialBook(config.getSearcher().getSmallerIsBetter());
    housekeeping = new ExperimentHousekeeping(experimentId, options);
  }

  /** Drives {@code searcher}; call once the config has its defaults and the data is pinned. */
  void drive(Searcher searcher) {
    SearcherDriver.TrialSetup setup =
        new SearcherDriver.TrialSetup(
            about.getExperimentId(),
            config,
            about.getData(),
            trainRows,
            options.getHeartbeatTimeoutSeconds(),
            request.hasWarmStart() ? Optional.of(request.getWarmStart()) : Optional.empty());
    driver =
        new SearcherDriver(
            searcher, setup, book, control, housekeeping.catalog(), new ChildTrialWorkflows());
  }

  /** The search attributes follow the state, the data version and the best metric. */
  void upsertSearchAttributes() {
    housekeeping.upsertSearchAttributes(summary());
  }

  /** What the user's requests do to the trials, once {@link ExperimentControl} applies them. */
  ExperimentControl.Effects controlEffects() {
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
        upsertSearchAttributes();
      }
    };
  }

  /** The state query's answer: the experiment, its trials and the searcher's brackets. */
  ExperimentState state() {
    ExperimentState.Builder s = summary().toBuilder().addAllTrials(book.snapshot());
    if (driver != null) {
      s.addAllBrackets(driver.brackets());
    }
    return s.build();
  }

  /** The experiment without its trials. */
  ExperimentState summary() {
    ExperimentState.Builder s = about.clone().setState(control.state());
    if (driver != null) {
      s.setProgress(driver.progress());
    }
    book.best().ifPresent(best -> s.setBestMetric(best.metric()).setBestTrialId(best.trialId()));
    return s.build();
  }

  /** The catalog rows not yet appended, for a reader that wants them before the next flush. */
  CatalogAppend pendingCatalog() {
    return CatalogAppend.newBuilder()
        .setExperimentId(about.getExperimentId())
        .setSequence(housekeeping.catalog().sequence())
        .addAllRows(housekeeping.catalog().pending())
        .build();
  }
}
