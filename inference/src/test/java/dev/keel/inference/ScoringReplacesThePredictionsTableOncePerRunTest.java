package dev.keel.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Value;
import dev.keel.activities.infer.InferenceActivities;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.gpu.model.ModelRegistry;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.dataset.DatasetReader;
import dev.keel.tables.dataset.LabeledImages;
import dev.keel.tables.testing.KernelRows;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The scoring activity on real Fashion-MNIST images and real checkpoints: a run writes one version
 * of the predictions table holding exactly that run's rows; a retry of the same run writes nothing;
 * a run with another checkpoint replaces the rows in a new version; a corrupt checkpoint or a
 * request without a target table fails once, without retries, and writes nothing.
 */
class ScoringReplacesThePredictionsTableOncePerRunTest {
  private static final Path DATA = Path.of("/usr/share/datasets/fashion-mnist");
  private static final TableRef SOURCE = TableRef.newBuilder().setUri("file:///fashion-mnist-idx").setVersion(3).build();
  private static final int ROWS = 2000;

  private static LabeledImages train;
  private static LabeledImages test;
  private static CheckpointRef first;
  private static CheckpointRef second;

  private TestActivityEnvironment env;
  private InferenceActivities scorer;
  private Path storage;

  @BeforeAll
  static void trainTwoCheckpoints() throws Exception {
    train = IdxFiles.read(DATA, "train");
    LabeledImages all = IdxFiles.read(DATA, "t10k");
    test = new LabeledImages(Arrays.copyOf(all.ids(), ROWS), Arrays.copyOf(all.labels(), ROWS),
        Arrays.copyOf(all.pixels(), ROWS * all.rows() * all.cols()), all.rows(), all.cols());
    Path checkpoints = TestDirs.create("scoring-checkpoints");
    first = train(checkpoints, 60);
    second = train(checkpoints, 120);
  }

  private static CheckpointRef train(Path root, long batches) throws Exception {
    TrainRequest request = TrainRequest.newBuilder().setExperimentId("exp-scoring").setTrialId("trial-" + batches)
        .setData(SOURCE).setModel(ModelSpec.newBuilder().setName("fashion_cnn"))
        .putHparams("width", Value.newBuilder().setNumberValue(8).build())
        .setSeed(11).setTargetBatches(batches).setCheckpointRoot(root.toUri().toString()).setThreads(1).build();
    return new Trainer(TrainingPlan.from(request, ModelRegistry.withBuiltIns()), train, ProgressListener.NONE)
        .run().checkpoint();
  }

  @BeforeEach
  void startActivity() throws Exception {
    storage = TestDirs.create("scoring-root");
    // The images come straight from the IDX files: reading Delta tables is the tables module's to prove.
    DatasetReader reader = (table, split) -> {
      assertEquals(SOURCE, table);
      assertEquals("test", split);
      return test;
    };
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(
        new InferenceActivitiesImpl(reader, StorageRoot.of(storage.toString()), ModelRegistry.withBuiltIns(), 1));
    scorer = env.newActivityStub(InferenceActivities.class);
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private static InferenceRequest request(CheckpointRef checkpoint) {
    return InferenceRequest.newBuilder().setCheckpoint(checkpoint).setData(SOURCE).setSplit("test")
        .setPredictionsTableUri("predictions").setModel(ModelSpec.newBuilder().setName("fashion_cnn")).build();
  }

  @Test
  void eachRunIsOneVersionAndARetryWritesNothing() throws Exception {
    InferenceResult run = scorer.score(request(first));
    assertEquals(0, run.getPredictions().getVersion());
    assertEquals(ROWS, run.getRows());
    assertEquals(first.getUuid(), run.getCheckpointUuid());
    assertTrue(run.getAccuracy() > 0.5 && run.getAccuracy() < 1, "accuracy " + run.getAccuracy());

    String table = storage.resolve("tables/predictions").toUri().toString();
    List<Map<String, Object>> rows = KernelRows.read(table);
    assertEquals(ROWS, rows.size());
    assertEquals(Set.of(first.getUuid()), rows.stream().map(r -> r.get("checkpoint_id")).collect(Collectors.toSet()));
    assertEquals(Set.of(3L), rows.stream().map(r -> r.get("source_table_version")).collect(Collectors.toSet()));
    long correct = rows.stream().filter(r -> label((Long) r.get("id")) == ((Number) r.get("predicted_label")).intValue()).count();
    assertEquals(run.getAccuracy(), correct / (double) ROWS, 1e-9, "the reported accuracy is that of the written rows");

    InferenceResult retry = scorer.score(request(first));
    assertEquals(0, retry.getPredictions().getVersion(), "a retried run commits nothing new");
    assertEquals(ROWS, KernelRows.read(table).size());

    InferenceResult next = scorer.score(request(second));
    assertEquals(1, next.getPredictions().getVersion());
    List<Map<String, Object>> replaced = KernelRows.read(table);
    assertEquals(ROWS, replaced.size(), "a run replaces the previous run's rows");
    assertEquals(Set.of(second.getUuid()), replaced.stream().map(r -> r.get("checkpoint_id")).collect(Collectors.toSet()));
  }

  @Test
  void aCorruptCheckpointFailsWithoutRetryAndWritesNothing() throws Exception {
    Path copy = TestDirs.create("corrupt");
    Path original = Path.of(URI.create(first.getUri()));
    try (var files = Files.list(original)) {
      for (Path f : files.toList()) {
        Files.copy(f, copy.resolve(f.getFileName()));
      }
    }
    byte[] params = Files.readAllBytes(copy.resolve(CheckpointFiles.PARAMETERS));
    params[params.length / 2] ^= 0x10;
    Files.write(copy.resolve(CheckpointFiles.PARAMETERS), params);
    CheckpointRef corrupt = first.toBuilder().setUri(copy.toUri().toString()).build();

    ActivityFailure e = assertThrows(ActivityFailure.class, () -> scorer.score(request(corrupt)));
    ApplicationFailure cause = (ApplicationFailure) e.getCause();
    assertTrue(cause.isNonRetryable(), cause.toString());
    assertTrue(cause.getOriginalMessage().contains(CheckpointFiles.PARAMETERS), cause.getOriginalMessage());
    assertTrue(Files.notExists(storage.resolve("tables/predictions/_delta_log")), "nothing was committed");
  }

  @Test
  void aRequestWithoutATargetTableIsRefusedByName() {
    ActivityFailure e = assertThrows(ActivityFailure.class,
        () -> scorer.score(request(first).toBuilder().clearPredictionsTableUri().build()));
    ApplicationFailure cause = (ApplicationFailure) e.getCause();
    assertTrue(cause.isNonRetryable());
    assertTrue(cause.getOriginalMessage().startsWith("predictions_table_uri"), cause.getOriginalMessage());
  }

  private static int label(long id) {
    return test.labels()[(int) id];
  }
}
