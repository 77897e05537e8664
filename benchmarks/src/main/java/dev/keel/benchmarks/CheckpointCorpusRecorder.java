package dev.keel.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledExamples;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Records one release's entry of the checkpoint corpus that {@code
 * CheckpointsOfEveryReleaseScoreAndResumeTest} (gpu-workers) reads forever after: a small labeled
 * features table, a {@code tabular_mlp} checkpoint trained on it with Adam (parameters, optimizer
 * state, standardization statistics), the request that trained it, and the checkpoint's predictions
 * on the test split. Run it once per release, from the repository root:
 *
 * <pre>
 * ./mvnw -o -q -B -DskipTests package -pl benchmarks -am
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *   dev.keel.benchmarks.CheckpointCorpusRecorder --release 0.1.0
 * </pre>
 *
 * It writes {@code gpu-workers/src/test/resources/checkpoint-corpus/<release>/} ({@code --out}
 * changes the parent) and refuses to overwrite an entry: a release's corpus never changes.
 */
public final class CheckpointCorpusRecorder {
  static final String CORPUS = "gpu-workers/src/test/resources/checkpoint-corpus";
  private static final int ROWS = 600;
  private static final long BATCHES = 40;

  private CheckpointCorpusRecorder() {}

  public static void main(String[] args) throws Exception {
    String release = null;
    Path parent = Path.of(CORPUS);
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--release" -> release = args[++i];
        case "--out" -> parent = Path.of(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (release == null || !release.matches("[0-9][0-9A-Za-z.\\-]*")) {
      throw new IllegalArgumentException("--release VERSION is required (e.g. 0.1.0)");
    }
    Path out = parent.resolve(release).toAbsolutePath();
    if (Files.exists(out)) {
      throw new IllegalStateException(out + " exists: a release's corpus entry never changes");
    }
    Path work = Files.createTempDirectory("keel-corpus");
    TableRef table = writeTable(out.resolve("table"));
    TrainRequest request =
        TrainRequest.newBuilder()
            .setExperimentId("corpus")
            .setTrialId(release)
            .setData(table)
            .setModel(ModelSpec.newBuilder().setName("tabular_mlp"))
            .putHparams("hidden_units", num(16))
            .putHparams("batch_size", num(32))
            .putHparams("lr", num(1e-2))
            .putHparams("dropout", num(0.2))
            .setSeed(11)
            .setThreads(1)
            .setTargetBatches(BATCHES)
            .setCheckpointRoot(work.resolve("checkpoints").toUri().toString())
            .build();
    LabeledExamples train = new DeltaDatasetReader().readExamples(table, "train");
    TrainingOutcome outcome =
        new Trainer(
                TrainingPlan.from(request, ModelZoo.withBuiltIns()), train, ProgressListener.NONE)
            .run();
    Path checkpoint = out.resolve("checkpoint");
    copy(Path.of(URI.create(outcome.checkpoint().getUri())), checkpoint);

    LabeledExamples test = new DeltaDatasetReader().readExamples(table, "test");
    Predictions predictions;
    try (CheckpointPredictor p =
        CheckpointPredictor.open(checkpoint.toUri().toString(), ModelZoo.withBuiltIns(), 1)) {
      predictions = p.predict(test);
    }
    ObjectMapper json = new ObjectMapper();
    ObjectNode expected = json.createObjectNode();
    expected.put("release", release);
    expected.put("batches", outcome.batches());
    expected.set("request", json.readTree(JsonFormat.printer().print(request)));
    var labels = expected.putArray("labels");
    var scores = expected.putArray("scores");
    for (int i = 0; i < predictions.size(); i++) {
      labels.add(predictions.labels()[i]);
      scores.add(predictions.scores()[i]);
    }
    Files.write(
        out.resolve("expected.json"),
        json.writerWithDefaultPrettyPrinter().writeValueAsBytes(expected));
    System.out.printf(
        "checkpoint corpus %s: %d batches, %d test rows, validation %s -> %s%n",
        release, outcome.batches(), test.size(), outcome.validationMetrics(), out);
  }

  /**
   * {@value #ROWS} rows of 4 features in [-1, 1), the class the largest of three linear functions
   * names; every fifth row is test.
   */
  private static TableRef writeTable(Path dir) throws IOException {
    Random random = new Random(3);
    long[] ids = new long[ROWS];
    int[] labels = new int[ROWS];
    String[] splits = new String[ROWS];
    float[][] features = new float[ROWS][];
    for (int i = 0; i < ROWS; i++) {
      float[] x = new float[4];
      for (int k = 0; k < 4; k++) {
        x[k] = random.nextFloat() * 2 - 1;
      }
      float[] score = {x[0] + x[1], x[2] - x[0], x[3] - x[1]};
      int best =
          score[0] >= score[1] ? (score[0] >= score[2] ? 0 : 2) : (score[1] >= score[2] ? 1 : 2);
      ids[i] = i;
      labels[i] = best;
      splits[i] = i % 5 == 0 ? "test" : "train";
      features[i] = x;
    }
    String uri = dir.toUri().toString();
    long version =
        new DeltaTableWriter(
                uri,
                TableSchemas.LABELED_FEATURES,
                Map.of(
                    TableSchemas.FEATURE_NAMES_PROPERTY, "a,b,c,d",
                    TableSchemas.CLASS_NAMES_PROPERTY, "left,right,up"))
            .newAppend()
            .add(
                Columns.of(ROWS)
                    .add("id", ids)
                    .add("label", labels)
                    .add("split", splits)
                    .add("features", features))
            .commit();
    return TableRef.newBuilder().setUri(uri).setVersion(version).build();
  }

  private static void copy(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.toList()) {
        Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
  }

  private static Value num(double v) {
    return Value.newBuilder().setNumberValue(v).build();
  }
}
