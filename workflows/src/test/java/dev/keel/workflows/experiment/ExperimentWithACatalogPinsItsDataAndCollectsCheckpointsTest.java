package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.activities.catalog.CatalogActivities;
import dev.keel.activities.checkpoint.CheckpointGcActivities;
import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.CatalogAppendResult;
import dev.keel.api.v1.CatalogRow;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.DescribeTableResult;
import dev.keel.api.v1.ExperimentRecord;
import dev.keel.api.v1.ExperimentRecordRequest;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.GcRequest;
import dev.keel.api.v1.GcResult;
import dev.keel.api.v1.TableRef;
import dev.keel.workflows.testing.KeelTestEnvironments;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An experiment with its catalog, in memory: the data table pinned at start, the rows appended in
 * batches, the checkpoints the GC policy does not keep collected at the end; and a table without
 * training rows refused before any trial starts. Its runs are also recorded histories that later
 * workflow code must replay.
 */
class ExperimentWithACatalogPinsItsDataAndCollectsCheckpointsTest {
  private static final String ASHA =
      """
      name: %s
      data: {table: fashion}
      hyperparameters:
        lr: {type: log, minval: -4, maxval: 0, base: 10}
      searcher: {name: adaptive_asha, metric: validation_loss, smaller_is_better: true,
                 max_trials: 6, max_length: {batches: 16}, max_rungs: 2, divisor: 4,
                 max_concurrent_trials: 0}
      max_restarts: 0
      reproducibility: {seed: 5}
      """;

  private final Catalog catalog = new Catalog();
  private final Collector collector = new Collector();
  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    env = KeelTestEnvironments.create();
    KeelTestEnvironments.control(env).registerActivitiesImplementations(catalog, collector);
    env.newWorker(TaskQueues.train("cpu"))
        .registerActivitiesImplementations(new FormulaTrainingActivities(Map.of()));
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void thePinnedVersionIsCatalogedAndCheckpointsBeyondThePolicyAreCollected() {
    catalog.trainRows = 600;
    ExperimentResult result = run("exp-catalog");
    RecordedHistories.save(client, "exp-catalog", "exp-catalog");

    assertEquals(ExperimentState.State.COMPLETED, result.getState().getState());
    assertEquals(
        TableRef.newBuilder().setUri("file:///t/fashion").setVersion(5).build(),
        result.getState().getData());
    assertEquals(1, collector.requests.size());
    assertFalse(collector.requests.get(0).getDeleteList().isEmpty());
    List<CatalogRow> rows = catalog.rows();
    assertTrue(rows.stream().anyMatch(r -> r.getState().equals("DELETED")), rows.toString());
    assertEquals("COMPLETED", lastExperimentRow(rows).getState());
  }

  @Test
  void aTableWithoutTrainingRowsEndsTheExperimentErroredBeforeAnyTrial() {
    catalog.trainRows = 0;
    WorkflowFailedException e =
        assertThrows(WorkflowFailedException.class, () -> run("exp-empty-table"));
    RecordedHistories.save(client, "exp-empty-table", "exp-empty-table");

    Throwable c = e;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    ApplicationFailure failure = assertInstanceOf(ApplicationFailure.class, c);
    assertEquals(FailureTypes.INVALID_EXPERIMENT_DATA, failure.getType());
    assertEquals(
        "table file:///t/fashion version 5 has no rows in the train split: nothing to train on",
        failure.getOriginalMessage());
    assertEquals("ERRORED", lastExperimentRow(catalog.rows()).getState());
    assertTrue(collector.requests.isEmpty());
  }

  private static CatalogRow lastExperimentRow(List<CatalogRow> rows) {
    List<CatalogRow> experiments =
        rows.stream().filter(r -> r.getKind().equals("experiments")).toList();
    return experiments.get(experiments.size() - 1);
  }

  private ExperimentResult run(String id) {
    return client
        .newWorkflowStub(
            ExperimentWorkflow.class,
            WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId(id).build())
        .run(
            ExperimentRequest.newBuilder()
                .setConfig(ExperimentTestSupport.config(ASHA.formatted(id)))
                .setOptions(ExperimentRunOptions.newBuilder().setCatalogBatchRows(8))
                .build());
  }

  /** Pins the latest version, 5, with {@link #trainRows} rows in the train split. */
  private static final class Catalog implements CatalogActivities {
    final List<CatalogAppend> appends = Collections.synchronizedList(new ArrayList<>());
    volatile long trainRows;

    @Override
    public ExperimentRecord experimentRecord(ExperimentRecordRequest r) {
      throw new UnsupportedOperationException("experiments do not read records");
    }

    @Override
    public DescribeTableResult describeTable(DescribeTableRequest r) {
      return DescribeTableResult.newBuilder()
          .setTable(TableRef.newBuilder().setUri("file:///t/" + r.getTable()).setVersion(5))
          .putRowsPerSplit("train", trainRows)
          .putRowsPerSplit("test", 100)
          .build();
    }

    @Override
    public CatalogAppendResult append(CatalogAppend batch) {
      appends.add(batch);
      return CatalogAppendResult.getDefaultInstance();
    }

    List<CatalogRow> rows() {
      synchronized (appends) {
        return appends.stream().flatMap(a -> a.getRowsList().stream()).toList();
      }
    }
  }

  private static final class Collector implements CheckpointGcActivities {
    final List<GcRequest> requests = Collections.synchronizedList(new ArrayList<>());

    @Override
    public GcResult collect(GcRequest r) {
      requests.add(r);
      return GcResult.newBuilder().setDeleted(r.getDeleteCount()).build();
    }
  }
}
