package dev.keel.tables.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.CatalogRow;
import dev.keel.api.v1.ExperimentRecord;
import dev.keel.api.v1.ExperimentRecordRequest;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialState;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pipeline that reuses an experiment reads it back from the catalog, as the experiment workflow
 * wrote it.
 */
class FinishedExperimentIsRebuiltFromItsCatalogRowsTest {
  private static final long T0 = CatalogActivitiesImplTest.T0;
  private static final String CONFIG =
      "{\"name\":\"lrs\",\"searcher\":{\"name\":\"grid\",\"metric\":\"validation_loss\","
          + "\"smaller_is_better\":true,\"max_length\":{\"batches\":\"100\"}},\"model\":{\"name\":\"fashion_cnn\"}}";
  private CatalogActivitiesImpl catalog;

  @BeforeEach
  void setUp() throws Exception {
    catalog = new CatalogActivitiesImpl(StorageRoot.of(TestDirs.create("records").toString()));
  }

  @Test
  void theBestCheckpointStillSavedIsTheOneReturnedWithItsTrialsHyperparameters() {
    List<CatalogRow> rows =
        new ArrayList<>(
            List.of(
                experiment("exp-1", "ACTIVE", T0),
                trial("exp-1", 1, "ACTIVE", "{\"lr\":0.1}", T0 + 1),
                trial("exp-1", 2, "ACTIVE", "{\"lr\":0.01}", T0 + 1),
                checkpoint("exp-1", 1, "c1", "SAVED", 0.5, 100, T0 + 2),
                checkpoint("exp-1", 2, "c3", "SAVED", 0.1, 50, T0 + 2),
                checkpoint("exp-1", 2, "c2", "SAVED", 0.2, 100, T0 + 3),
                CatalogRow.newBuilder()
                    .setKind("checkpoints")
                    .setExperimentId("exp-1")
                    .setTrialId(2)
                    .setState("SAVED")
                    .setName(CatalogTables.PERIODIC)
                    .setCheckpointUuid("p1")
                    .setUri("file:///c/p1/")
                    .setBatches(70)
                    .setTimeMillis(T0 + 3)
                    .build(),
                // checkpoint GC removed the best one; the trials and the experiment completed
                checkpoint("exp-1", 2, "c3", "DELETED", 0, 0, T0 + 4),
                trial("exp-1", 1, "COMPLETED", "{\"lr\":0.1}", T0 + 5),
                trial("exp-1", 2, "COMPLETED", "{\"lr\":0.01}", T0 + 5),
                experiment("exp-1", "COMPLETED", T0 + 6),
                experiment("other", "COMPLETED", T0 + 6)));
    catalog.append(CatalogActivitiesImplTest.batch("exp-1", 1, rows));

    ExperimentRecord record =
        catalog.experimentRecord(
            ExperimentRecordRequest.newBuilder().setExperimentId("exp-1").build());

    assertEquals("fashion_cnn", record.getConfig().getModel().getName());
    assertEquals(100, record.getConfig().getSearcher().getMaxLength().getBatches());
    ExperimentState state = record.getResult().getState();
    assertEquals(ExperimentState.State.COMPLETED, state.getState());
    assertEquals(
        List.of(1L, 2L), state.getTrialsList().stream().map(TrialState::getTrialId).toList());
    assertEquals(0.01, state.getTrials(1).getHparamsOrThrow("lr").getNumberValue());
    assertEquals(TrialState.State.COMPLETED, state.getTrials(1).getState());
    assertEquals(2, state.getBestTrialId());
    assertEquals(
        "c2", record.getResult().getBestCheckpoint().getUuid(), "c3 was better but is deleted");
    assertEquals("trial-2", record.getResult().getBestCheckpoint().getTrialId());
    assertEquals(100, record.getResult().getBestCheckpoint().getMetricsOrThrow("length"));
    assertEquals(0.2, record.getResult().getBestCheckpoint().getMetricsOrThrow("searcher_metric"));
    assertEquals("file:///data/fashion", state.getData().getUri());
    assertEquals(4, state.getData().getVersion());
  }

  @Test
  void anUnknownOrUnfinishedExperimentIsRefusedByName() {
    catalog.append(
        CatalogActivitiesImplTest.batch(
            "running", 1, List.of(experiment("running", "ACTIVE", T0))));

    ApplicationFailure unknown =
        assertThrows(
            ApplicationFailure.class,
            () ->
                catalog.experimentRecord(
                    ExperimentRecordRequest.newBuilder().setExperimentId("nope").build()));
    assertEquals(FailureTypes.INVALID_ARGUMENT, unknown.getType());
    assertEquals(
        "no experiment 'nope' in the catalog " + catalog.tableUri(CatalogTables.EXPERIMENTS),
        unknown.getOriginalMessage());
    ApplicationFailure active =
        assertThrows(
            ApplicationFailure.class,
            () ->
                catalog.experimentRecord(
                    ExperimentRecordRequest.newBuilder().setExperimentId("running").build()));
    assertEquals(
        "experiment running is ACTIVE: only a COMPLETED experiment's best trial can be reused",
        active.getOriginalMessage());
  }

  private static CatalogRow experiment(String id, String state, long time) {
    return CatalogRow.newBuilder()
        .setKind("experiments")
        .setExperimentId(id)
        .setState(state)
        .setName("lrs")
        .setUri("file:///data/fashion")
        .setLength(4)
        .setJson(CONFIG)
        .setTimeMillis(time)
        .build();
  }

  private static CatalogRow trial(String id, long trial, String state, String hparams, long time) {
    return CatalogRow.newBuilder()
        .setKind("trials")
        .setExperimentId(id)
        .setTrialId(trial)
        .setState(state)
        .setLength(100)
        .setJson(hparams)
        .setTimeMillis(time)
        .build();
  }

  private static CatalogRow checkpoint(
      String id, long trial, String uuid, String state, double metric, long length, long time) {
    CatalogRow.Builder b =
        CatalogRow.newBuilder()
            .setKind("checkpoints")
            .setExperimentId(id)
            .setTrialId(trial)
            .setState(state)
            .setCheckpointUuid(uuid)
            .setUri("file:///c/" + uuid + "/")
            .setSizeBytes(10)
            .setBatches(length)
            .setTimeMillis(time);
    return state.equals("SAVED") ? b.setLength(length).setValue(metric).build() : b.build();
  }
}
