package dev.keel.tables.catalog;

import static dev.keel.tables.catalog.CatalogActivitiesImplTest.T0;
import static dev.keel.tables.catalog.CatalogActivitiesImplTest.batch;
import static dev.keel.tables.catalog.CatalogActivitiesImplTest.sampleRows;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.v1.CatalogRow;
import dev.keel.storage.StorageRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A running experiment's rows are partly in the catalog tables and partly still held by its
 * workflow: the history joins both, keeps each row once when a batch was appended between the query
 * and the read, takes the latest row of each trial and checkpoint, and gives a deleted checkpoint
 * the length and metric of its SAVED row.
 */
class ExperimentHistoryJoinsPendingRowsWithTheTablesOnceEachTest {
  @Test
  void rowsInBothPlacesCountOnceAndTheLatestStateWins() throws Exception {
    Path root =
        Files.createDirectories(
            Path.of("target", "history", UUID.randomUUID().toString()).toAbsolutePath());
    StorageRoot storage = StorageRoot.of(root.toString());
    List<CatalogRow> appended = sampleRows("e1");
    new CatalogActivitiesImpl(storage).append(batch("e1", 1, appended));
    new CatalogActivitiesImpl(storage).append(batch("other", 1, sampleRows("other")));

    List<CatalogRow> pending = new ArrayList<>(appended.subList(3, 5)); // the metrics rows again
    pending.add(
        CatalogRow.newBuilder()
            .setKind("metrics")
            .setExperimentId("e1")
            .setTrialId(1)
            .setName("validation_accuracy")
            .setValue(0.9)
            .setLength(800)
            .setBatches(800)
            .setCheckpointUuid("c2")
            .setTimeMillis(T0 + 10)
            .build());
    pending.add(
        CatalogRow.newBuilder()
            .setKind("trials")
            .setExperimentId("e1")
            .setTrialId(1)
            .setState("COMPLETED")
            .setLength(800)
            .setJson("{\"lr\":0.01}")
            .setTimeMillis(T0 + 11)
            .build());
    pending.add(
        CatalogRow.newBuilder()
            .setKind("checkpoints")
            .setExperimentId("e1")
            .setTrialId(1)
            .setState("DELETED")
            .setCheckpointUuid("c1")
            .setUri("file:///data/checkpoints/e/trial-1/c1/")
            .setSizeBytes(12_345)
            .setBatches(400)
            .setTimeMillis(T0 + 12)
            .build());

    ExperimentHistory.Records r = new ExperimentHistory(storage).read("e1", pending);

    assertEquals("{\"name\":\"mnist-asha\"}", r.configJson());
    assertEquals(
        List.of(
            "1 validation_accuracy 400 0.875",
            "1 validation_loss 400 0.31",
            "1 validation_accuracy 800 0.9"),
        r.metrics().stream()
            .map(m -> m.trialId() + " " + m.name() + " " + m.batches() + " " + m.value())
            .toList());
    assertEquals(
        List.of("1 COMPLETED 800", "2 ERRORED 200"),
        r.trials().stream().map(t -> t.trialId() + " " + t.state() + " " + t.length()).toList());
    assertEquals("boom: NaN loss", r.trials().get(1).error());
    assertEquals(
        List.of("c0 DELETED null null", "c1 DELETED 400 0.875"),
        r.checkpoints().stream()
            .map(c -> c.uuid() + " " + c.state() + " " + c.length() + " " + c.metric())
            .toList());
  }

  @Test
  void anExperimentWithNoRowsHasAnEmptyHistory() {
    Path root = Path.of("target", "history", UUID.randomUUID().toString()).toAbsolutePath();
    ExperimentHistory.Records r =
        new ExperimentHistory(StorageRoot.of(root.toString())).read("nothing", List.of());
    assertEquals("", r.configJson());
    assertEquals(List.of(), r.trials());
    assertEquals(List.of(), r.metrics());
    assertEquals(List.of(), r.checkpoints());
  }
}
