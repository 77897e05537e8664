package dev.keel.gpu.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The checkpoint corpus ({@code src/test/resources/checkpoint-corpus/<release>/}, recorded by
 * {@code benchmarks}' {@code CheckpointCorpusRecorder} once per release): every release's {@code
 * tabular_mlp} checkpoint, with its Adam state and standardization statistics, and the Delta table
 * it was trained on still open with today's code, score the table's test rows as they did when they
 * were written (labels equal, probabilities within 1e-5: another CPU type may round differently),
 * and resume training for 10 more batches.
 */
class CheckpointsOfEveryReleaseScoreAndResumeTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TestFactory
  Stream<DynamicTest> everyReleaseInTheCorpus() throws Exception {
    Path corpus = Path.of(getClass().getResource("/checkpoint-corpus").toURI());
    List<Path> releases;
    try (Stream<Path> dirs = Files.list(corpus)) {
      releases = dirs.filter(Files::isDirectory).sorted().toList();
    }
    assertFalse(releases.isEmpty(), "the corpus holds no release: " + corpus);
    return releases.stream()
        .map(r -> DynamicTest.dynamicTest(r.getFileName().toString(), () -> scoresAndResumes(r)));
  }

  private static void scoresAndResumes(Path entry) throws Exception {
    Path copy = TestDirs.create("corpus-" + entry.getFileName());
    copyTree(entry, copy);
    JsonNode expected = JSON.readTree(copy.resolve("expected.json").toFile());
    TrainRequest.Builder recorded = TrainRequest.newBuilder();
    JsonFormat.parser().merge(JSON.writeValueAsString(expected.get("request")), recorded);
    TableRef table =
        recorded.getData().toBuilder().setUri(copy.resolve("table").toUri().toString()).build();
    String checkpoint = copy.resolve("checkpoint").toUri().toString();

    LabeledExamples test = new DeltaDatasetReader().readExamples(table, "test");
    Predictions predictions;
    try (CheckpointPredictor p = CheckpointPredictor.open(checkpoint, ModelZoo.withBuiltIns(), 1)) {
      predictions = p.predict(test);
    }
    int[] labels = new int[expected.get("labels").size()];
    for (int i = 0; i < labels.length; i++) {
      labels[i] = expected.get("labels").get(i).asInt();
    }
    assertArrayEquals(labels, predictions.labels(), "the recorded predicted labels");
    for (int i = 0; i < labels.length; i++) {
      assertEquals(
          expected.get("scores").get(i).asDouble(), predictions.scores()[i], 1e-5, "score " + i);
    }

    long batches = expected.get("batches").asLong();
    TrainRequest resume =
        recorded
            .setData(table)
            .setTrialId("resumed")
            .setCheckpointRoot(copy.resolve("resumed").toUri().toString())
            .setStartFrom(CheckpointRef.newBuilder().setUri(checkpoint))
            .setTargetBatches(batches + 10)
            .build();
    LabeledExamples train = new DeltaDatasetReader().readExamples(table, "train");
    TrainingOutcome outcome =
        new Trainer(
                TrainingPlan.from(resume, ModelZoo.withBuiltIns()), train, ProgressListener.NONE)
            .run();
    assertEquals(batches + 10, outcome.batches(), "resumed from the recorded batch count");
    assertTrue(Double.isFinite(outcome.finalLoss()), "final loss " + outcome.finalLoss());
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : all.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
