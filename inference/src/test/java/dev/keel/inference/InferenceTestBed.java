package dev.keel.inference;

import com.google.protobuf.Value;
import dev.keel.activities.TaskQueues;
import dev.keel.activities.infer.InferenceActivities;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.CommitPredictionsRequest;
import dev.keel.api.v1.DiscardPredictionsRequest;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.ScorePartitionRequest;
import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledImages;
import dev.keel.tables.drift.DriftActivitiesImpl;
import dev.keel.tables.drift.DriftTable;
import dev.keel.tables.registry.ModelRegistryActivitiesImpl;
import dev.keel.tables.registry.ModelRegistryTable;
import dev.keel.tables.testing.KernelRows;
import dev.keel.workflows.KeelSearchAttributes;
import dev.keel.workflows.KeelWorkflows;
import dev.keel.workflows.inference.InferenceWorkflow;
import io.temporal.activity.Activity;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the inference tests share: a real checkpoint of {@code fashion_cnn} trained briefly on
 * Fashion-MNIST; a real labeled-images Delta table version holding 2,000 test images in two data
 * files (1,200 test rows; 800 test rows followed by 300 training rows); and a Temporal test
 * environment running the real {@code Inference} workflow and the real activities (the drift
 * check's too, over {@code <storage>/_keel/drift}, and the model registry's).
 */
final class InferenceTestBed implements AutoCloseable {
  static final Path DATA = Path.of("/usr/share/datasets/fashion-mnist");
  static final int TEST_ROWS = 2000;
  static final int FIRST_FILE = 1200;

  /** 1,200 rows → 3 partitions, 800 rows → 2 partitions. */
  static final long PARTITION_ROWS = 400;

  static final int PARTITIONS = 5;

  private static LabeledImages test;
  private static CheckpointRef checkpoint;
  private static TableRef source;

  final Path storage;
  final TestWorkflowEnvironment env;
  final WorkflowClient client;
  final InferenceActivitiesImpl real;

  /** Runs after the real scoring of a partition returned (its files are staged); may throw. */
  interface AfterScore {
    void after(ScorePartitionRequest request, int attempt);
  }

  InferenceTestBed(AfterScore afterScore) throws Exception {
    prepareOnce();
    storage = TestDirs.create("inference-root");
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(
                    WorkflowClientOptions.newBuilder()
                        .setDataConverter(KeelDataConverter.get())
                        .build())
                .build());
    KeelSearchAttributes.ALL.forEach(a -> env.registerSearchAttribute(a.name(), a.type()));
    Worker control = env.newWorker(TaskQueues.CONTROL);
    KeelWorkflows.register(control);
    StorageRoot root = StorageRoot.of(storage.toString());
    control.registerActivitiesImplementations(
        new DriftActivitiesImpl(root, new DriftTable(root), new DeltaDatasetReader()),
        new ModelRegistryActivitiesImpl(new ModelRegistryTable(root)));
    real =
        new InferenceActivitiesImpl(StorageRoot.of(storage.toString()), ModelZoo.withBuiltIns(), 1);
    env.newWorker(TaskQueues.INFER).registerActivitiesImplementations(new Faulty(real, afterScore));
    env.start();
    client = env.getWorkflowClient();
  }

  InferenceTestBed() throws Exception {
    this((r, attempt) -> {});
  }

  private static synchronized void prepareOnce() throws Exception {
    if (checkpoint != null) {
      return;
    }
    LabeledImages train = IdxFiles.read(DATA, "train");
    test = slice(IdxFiles.read(DATA, "t10k"), 0, TEST_ROWS);
    Path root = TestDirs.create("inference-fixture");
    String table = root.resolve("fashion").toUri().toString();
    long version =
        new DeltaTableWriter(table, TableSchemas.LABELED_IMAGES)
            .append(
                columns(slice(testImages(), 0, FIRST_FILE), "test"),
                columns(
                    concat(
                        slice(testImages(), FIRST_FILE, TEST_ROWS - FIRST_FILE),
                        slice(train, 0, 300)),
                    "mixed"));
    source = TableRef.newBuilder().setUri(table).setVersion(version).build();
    TrainRequest request =
        TrainRequest.newBuilder()
            .setExperimentId("exp-infer")
            .setTrialId("trial-1")
            .setData(source)
            .setModel(ModelSpec.newBuilder().setName("fashion_cnn"))
            .putHparams("width", Value.newBuilder().setNumberValue(8).build())
            .setSeed(11)
            .setTargetBatches(80)
            .setCheckpointRoot(root.resolve("checkpoints").toUri().toString())
            .setThreads(1)
            .build();
    checkpoint =
        new Trainer(
                TrainingPlan.from(request, ModelZoo.withBuiltIns()), train, ProgressListener.NONE)
            .run()
            .checkpoint();
  }

  /** "mixed": the first 800 rows are test rows, the rest training rows. */
  private static Columns columns(LabeledImages images, String split) {
    int n = images.size();
    String[] splits = new String[n];
    for (int i = 0; i < n; i++) {
      splits[i] = split.equals("test") || i < TEST_ROWS - FIRST_FILE ? "test" : "train";
    }
    return Columns.of(n)
        .add("id", images.ids())
        .add("label", images.labels())
        .add("split", splits)
        .addFixedBinary("image", images.pixels(), images.imageBytes());
  }

  static LabeledImages slice(LabeledImages all, int from, int n) {
    int b = all.imageBytes();
    return new LabeledImages(
        Arrays.copyOfRange(all.ids(), from, from + n),
        Arrays.copyOfRange(all.labels(), from, from + n),
        Arrays.copyOfRange(all.pixels(), from * b, (from + n) * b),
        all.rows(),
        all.cols());
  }

  private static LabeledImages concat(LabeledImages a, LabeledImages b) {
    int n = a.size() + b.size();
    long[] ids = Arrays.copyOf(a.ids(), n);
    System.arraycopy(b.ids(), 0, ids, a.size(), b.size());
    int[] labels = Arrays.copyOf(a.labels(), n);
    System.arraycopy(b.labels(), 0, labels, a.size(), b.size());
    byte[] px = Arrays.copyOf(a.pixels(), a.pixels().length + b.pixels().length);
    System.arraycopy(b.pixels(), 0, px, a.pixels().length, b.pixels().length);
    return new LabeledImages(ids, labels, px, a.rows(), a.cols());
  }

  /**
   * The 2,000 test images as stored: ids 100,000 + their t10k row, so they differ from training
   * ids.
   */
  static LabeledImages testImages() {
    long[] ids = Arrays.stream(test.ids()).map(id -> id + 100_000).toArray();
    return new LabeledImages(ids, test.labels(), test.pixels(), test.rows(), test.cols());
  }

  static CheckpointRef checkpoint() {
    return checkpoint;
  }

  static TableRef source() {
    return source;
  }

  InferenceRequest.Builder request(String predictions) {
    return InferenceRequest.newBuilder()
        .setCheckpoint(checkpoint)
        .setData(source)
        .setSplit("test")
        .setPredictionsTableUri(predictions)
        .setModel(ModelSpec.newBuilder().setName("fashion_cnn"))
        .setModelVersion("fashion-model/3")
        .setMaxPartitionRows(PARTITION_ROWS)
        .setMaxParallelPartitions(2);
  }

  InferenceWorkflow workflow(String id) {
    return client.newWorkflowStub(
        InferenceWorkflow.class,
        WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId(id).build());
  }

  /** A stub of the run started with {@code id}, for queries. */
  InferenceWorkflow existing(String id) {
    return client.newWorkflowStub(InferenceWorkflow.class, id);
  }

  InferenceResult run(String id, InferenceRequest request) {
    return workflow(id).run(request);
  }

  String table(String name) {
    return storage.resolve("tables").resolve(name).toUri().toString();
  }

  static List<Map<String, Object>> rowsOf(List<Map<String, Object>> rows, String runId) {
    return rows.stream().filter(r -> runId.equals(r.get("run_id"))).collect(Collectors.toList());
  }

  static List<Map<String, Object>> rows(String table) throws Exception {
    return KernelRows.read(table);
  }

  @Override
  public void close() {
    env.close();
    real.close();
  }

  /** The real activities with a fault injected after the real scoring of a partition. */
  private record Faulty(InferenceActivitiesImpl real, AfterScore afterScore)
      implements InferenceActivities {
    @Override
    public InferencePlan plan(InferenceRequest request) {
      return real.plan(request);
    }

    @Override
    public ScorePartitionResult scorePartition(ScorePartitionRequest request) {
      ScorePartitionResult result = real.scorePartition(request);
      afterScore.after(request, Activity.getExecutionContext().getInfo().getAttempt());
      return result;
    }

    @Override
    public TableRef commit(CommitPredictionsRequest request) {
      return real.commit(request);
    }

    @Override
    public void discard(DiscardPredictionsRequest request) {
      real.discard(request);
    }
  }
}
