package dev.keel.workflows.experiment;

import dev.keel.activities.catalog.CatalogActivities;
import dev.keel.activities.catalog.CatalogActivityOptions;
import dev.keel.activities.checkpoint.CheckpointGcActivities;
import dev.keel.activities.checkpoint.CheckpointGcActivityOptions;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.GcRequest;
import dev.keel.api.v1.TrialState;
import dev.keel.workflows.KeelSearchAttributes;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * What an experiment keeps up besides its search: the catalog (rows buffered, flushed in batches),
 * checkpoint GC once every trial has ended, and the search attributes that find it in visibility
 * queries. Workflow code only: it calls activities and upserts.
 */
final class ExperimentHousekeeping {
  /**
   * The change that made GC rank "best" as the experiment's result does (BestCheckpoints) and keep
   * that checkpoint.
   */
  static final String ONE_BEST_RULE = "gc-ranks-by-the-one-best-rule";

  private final String experimentId;
  private final boolean withoutCatalog;
  private final CatalogBuffer catalog;

  /**
   * @param options with {@code ConfigDefaults} applied
   */
  ExperimentHousekeeping(String experimentId, ExperimentRunOptions options) {
    this.experimentId = experimentId;
    this.withoutCatalog = options.getWithoutCatalog();
    catalog =
        new CatalogBuffer(
            experimentId,
            withoutCatalog ? null : catalogActivities(),
            options.getCatalogBatchRows(),
            Workflow::currentTimeMillis);
  }

  static CatalogActivities catalogActivities() {
    return Workflow.newActivityStub(
        CatalogActivities.class, CatalogActivityOptions.forCatalog("catalog"));
  }

  CatalogBuffer catalog() {
    return catalog;
  }

  /**
   * After a batch of reports: one append per {@code catalog_batch_rows} rows, not one per metric.
   */
  void flushIfFull() {
    catalog.flushIfFull();
  }

  /** Before continue-as-new and at the end, so that no row waits for a run that never comes. */
  void flush() {
    catalog.flush();
  }

  /**
   * On the way to failing the experiment, whose failure must say what is wrong, not that the
   * catalog is unwritable.
   */
  void flushBeforeFailing() {
    try {
      catalog.flush();
    } catch (ActivityFailure unwritable) {
      // the catalog lives in the same storage as the data the failure is about
    }
  }

  /** Deletes the checkpoints the GC policy does not keep, and records them DELETED. */
  void collectGarbage(List<TrialState> trials, ExperimentConfig config) {
    if (withoutCatalog) {
      return;
    }
    boolean oneBestRule = Workflow.getVersion(ONE_BEST_RULE, Workflow.DEFAULT_VERSION, 1) >= 1;
    List<CheckpointRef> delete =
        new CheckpointGcPolicy(
                config.getCheckpointStorage(),
                config.getSearcher().getSmallerIsBetter(),
                oneBestRule)
            .delete(trials);
    if (delete.isEmpty()) {
      return;
    }
    try {
      Workflow.newActivityStub(
              CheckpointGcActivities.class,
              CheckpointGcActivityOptions.forCollection(
                  "collect " + delete.size() + " checkpoints"))
          .collect(
              GcRequest.newBuilder()
                  .setExperimentId(experimentId)
                  .addAllDelete(delete)
                  .setCheckpointRoot(config.getCheckpointStorage().getStoragePath())
                  .build());
    } catch (ActivityFailure e) {
      // Housekeeping: a refused or failed deletion keeps the checkpoints (and no DELETED rows), not
      // fail the search.
      Workflow.getLogger(ExperimentHousekeeping.class)
          .warn("checkpoint GC of {} failed: {}", experimentId, ActivityFailures.rootMessage(e));
      return;
    }
    catalog.deleted(delete);
  }

  /** Name (else id), state, data version and, once known, best metric of the experiment. */
  void upsertSearchAttributes(ExperimentState s) {
    List<SearchAttributeUpdate<?>> updates = new ArrayList<>();
    updates.add(
        KeelSearchAttributes.EXPERIMENT.valueSet(
            s.getName().isEmpty() ? s.getExperimentId() : s.getName()));
    updates.add(KeelSearchAttributes.STATE.valueSet(s.getState().name()));
    updates.add(KeelSearchAttributes.DATA_VERSION.valueSet(s.getData().getVersion()));
    if (s.hasBestMetric()) {
      updates.add(KeelSearchAttributes.BEST_METRIC.valueSet(s.getBestMetric()));
    }
    Workflow.upsertTypedSearchAttributes(updates.toArray(new SearchAttributeUpdate<?>[0]));
  }
}
