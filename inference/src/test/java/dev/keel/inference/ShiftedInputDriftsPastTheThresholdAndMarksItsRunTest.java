package dev.keel.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.api.v1.DriftConfig;
import dev.keel.api.v1.DriftRecord;
import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.RegisterModelRequest;
import dev.keel.api.v1.TableRef;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledImages;
import dev.keel.tables.drift.DriftTable;
import dev.keel.tables.registry.ModelRegistryTable;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Real Fashion-MNIST, a real checkpoint, the real Inference workflow: test images like the training
 * images do not drift; the same test images inverted (255 - pixel), written as the table's next
 * version, drift far past the threshold, and the run's mark is read back from {@code _keel/drift}.
 * A run without a reference takes its registered model version's data. The training split's
 * statistics are computed once and shared by every run.
 */
class ShiftedInputDriftsPastTheThresholdAndMarksItsRunTest {
  private static final int TRAIN_ROWS = 6000;
  private static final double THRESHOLD = 0.25;

  @Test
  void testImagesDoNotDriftInvertedImagesDriftAndTheMarkIsRecorded() throws Exception {
    try (InferenceTestBed bed = new InferenceTestBed()) {
      LabeledImages train =
          InferenceTestBed.slice(IdxFiles.read(InferenceTestBed.DATA, "train"), 0, TRAIN_ROWS);
      LabeledImages test = InferenceTestBed.testImages();
      String uri = bed.table("fashion-drift");
      DeltaTableWriter writer = new DeltaTableWriter(uri, TableSchemas.LABELED_IMAGES);
      TableRef asTrained = ref(uri, writer.append(columns(train, "train"), columns(test, "test")));
      TableRef inverted =
          ref(
              uri,
              writer
                  .newAppend()
                  .add(columns(train, "train"))
                  .add(columns(invert(test), "test"))
                  .replaceContents()
                  .commit());

      DriftConfig drift =
          DriftConfig.newBuilder()
              .setThreshold(THRESHOLD)
              .setReference(asTrained)
              .setTopFeatures(3)
              .build();
      InferenceResult calm =
          bed.run(
              "calm", bed.request("drift-predictions").setData(asTrained).setDrift(drift).build());
      InferenceResult shifted =
          bed.run(
              "shifted",
              bed.request("drift-predictions").setData(inverted).setDrift(drift).build());

      DriftReport c = calm.getDrift();
      assertEquals("mean_shift", c.getMeasure());
      assertFalse(c.getDrifted(), "test images score " + c.getScore());
      assertTrue(c.getScore() < THRESHOLD, "score " + c.getScore());
      assertEquals(TRAIN_ROWS, c.getReferenceRows());
      DriftReport s = shifted.getDrift();
      assertTrue(s.getDrifted(), "inverted images score " + s.getScore());
      assertTrue(s.getScore() > 4 * THRESHOLD, "score " + s.getScore());
      assertTrue(
          s.getTotalVariation() > c.getTotalVariation(),
          "inverted images move the predicted labels: "
              + s.getTotalVariation()
              + " vs "
              + c.getTotalVariation());
      assertEquals(3, s.getTopFeaturesCount());
      assertTrue(s.getTopFeatures(0).getShift() >= s.getTopFeatures(2).getShift());
      System.out.printf(
          "drift: test images mean_shift %.4f tv %.4f psi %.4f; inverted mean_shift %.4f tv %.4f psi %.4f%n",
          c.getMeanShift(),
          c.getTotalVariation(),
          c.getPsi(),
          s.getMeanShift(),
          s.getTotalVariation(),
          s.getPsi());

      // the mark, read back from storage
      StorageRoot root = StorageRoot.of(bed.storage.toString());
      List<DriftRecord> reports = new DriftTable(root).reports("fashion-model/3");
      assertEquals(2, reports.size());
      DriftRecord marked =
          reports.stream()
              .filter(r -> r.getRunId().equals(shifted.getRunId()))
              .findFirst()
              .orElseThrow();
      assertTrue(marked.getReport().getDrifted());
      assertEquals(s.getScore(), marked.getReport().getScore());
      assertEquals(shifted.getPredictions(), marked.getPredictions());
      assertEquals(inverted.getVersion(), marked.getData().getVersion());
      assertFalse(
          reports.stream()
              .filter(r -> r.getRunId().equals(calm.getRunId()))
              .findFirst()
              .orElseThrow()
              .getReport()
              .getDrifted());

      // without a reference, the run takes the registered model version's data
      new ModelRegistryTable(root)
          .register(
              RegisterModelRequest.newBuilder()
                  .setName("fashion")
                  .setCheckpoint(InferenceTestBed.checkpoint())
                  .setData(asTrained)
                  .setRegisteredBy("test")
                  .build());
      InferenceResult byModel =
          bed.run(
              "by-model",
              bed.request("drift-predictions")
                  .setData(asTrained)
                  .setModelVersion("fashion/1")
                  .setDrift(drift.toBuilder().clearReference())
                  .build());
      assertEquals(asTrained, byModel.getDrift().getReference());
      assertEquals(
          c.getScore(),
          byModel.getDrift().getScore(),
          1e-9,
          "the same rows against the same reference");

      // one reference row for the training split, although three runs used it
      List<Map<String, Object>> rows = InferenceTestBed.rows(new DriftTable(root).tableUri());
      assertEquals(
          1, rows.stream().filter(r -> "reference".equals(r.get("kind"))).count(), rows.toString());
      assertEquals(
          List.of(true),
          rows.stream()
              .filter(r -> shifted.getRunId().equals(r.get("key")))
              .map(r -> r.get("drifted"))
              .toList());
    }
  }

  @Test
  void aReferenceVersionThatDoesNotExistRefusesTheRunBeforeAnythingIsWritten() throws Exception {
    try (InferenceTestBed bed = new InferenceTestBed()) {
      TableRef missing = InferenceTestBed.source().toBuilder().setVersion(99).build();
      WorkflowFailedException e =
          assertThrows(
              WorkflowFailedException.class,
              () ->
                  bed.run(
                      "bad-reference",
                      bed.request("never-written")
                          .setDrift(
                              DriftConfig.newBuilder().setThreshold(0.2).setReference(missing))
                          .build()));
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      ApplicationFailure failure = (ApplicationFailure) root;
      assertEquals(FailureTypes.INVALID_TABLE, failure.getType());
      assertTrue(
          failure.getOriginalMessage().startsWith("drift.reference: "),
          failure.getOriginalMessage());
      assertTrue(
          DeltaTables.latestVersion(DeltaTables.defaultEngine(), bed.table("never-written"))
              .isEmpty(),
          "no predictions version");
    }
  }

  private static TableRef ref(String uri, long version) {
    return TableRef.newBuilder().setUri(uri).setVersion(version).build();
  }

  private static LabeledImages invert(LabeledImages images) {
    byte[] px = images.pixels().clone();
    for (int i = 0; i < px.length; i++) {
      px[i] = (byte) (255 - (px[i] & 0xff));
    }
    return new LabeledImages(images.ids(), images.labels(), px, images.rows(), images.cols());
  }

  private static Columns columns(LabeledImages images, String split) {
    String[] splits = new String[images.size()];
    Arrays.fill(splits, split);
    return Columns.of(images.size())
        .add("id", images.ids())
        .add("label", images.labels())
        .add("split", splits)
        .addFixedBinary("image", images.pixels(), images.imageBytes());
  }
}
