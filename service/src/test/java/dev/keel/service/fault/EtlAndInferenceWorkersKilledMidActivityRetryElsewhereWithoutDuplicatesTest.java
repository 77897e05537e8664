package dev.keel.service.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.PipelineResult;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.fault.FaultStack.ChildWorker;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.data.CloseableIterator;
import io.delta.standalone.data.RowRecord;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ETL worker is killed with SIGKILL in the middle of the pipeline's ingest, and the inference
 * worker in the middle of scoring, each a {@code keel worker} process of its own. The heartbeats
 * those activities send while they decode, write and score let the server find each dead attempt
 * within the pipeline's 5 s heartbeat timeout, so the retry goes to a new worker at once instead of
 * after the activities' 30-minute start-to-close timeout. The run finishes with one data version of
 * all 70,000 rows and one predictions version holding each of the 10,000 test rows once: the killed
 * attempts left nothing behind that a reader sees.
 */
class EtlAndInferenceWorkersKilledMidActivityRetryElsewhereWithoutDuplicatesTest {
  private static final String PIPELINE =
      """
      name: killed-etl-and-inference
      source: {format: fashion_mnist, uri: /usr/share/datasets/fashion-mnist}
      target_table: fashion_mnist
      experiment:
        name: killed-etl-and-inference
        hyperparameters: {lr: 0.003, batch_size: 64, width: 8, hidden: 32, dropout: 0.0, optimizer: adam}
        searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 100}}
        reproducibility: {seed: 5}
        model: {name: fashion_cnn}
      experiment_options: {heartbeat_timeout_seconds: 5}
      """;

  private static FaultStack stack;

  @BeforeAll
  static void startStack() throws Exception {
    stack = FaultStack.start("killed-etl-and-inference");
    stack.inProcess(Set.of(Role.CONTROL, Role.TRAIN), 1);
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void theKilledIngestAndScoringRetryOnNewWorkersAndCommitOnce() throws Exception {
    String id = "killed-etl-and-inference";
    ChildWorker etl = stack.child("etl-0", "--roles", "ETL", "--dev-server");
    ChildWorker infer = stack.child("infer-0", "--roles", "INFER", "--dev-server");
    long t0 = System.nanoTime();
    WorkflowClient.start(
        stack.client.newWorkflowStub(
                PipelineWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(id)
                    .build())
            ::run,
        ExperimentConfigLoaders.pipelineLoader().fromYaml(PIPELINE));

    FaultStack.await("the ingest to start", Duration.ofMinutes(2), () -> stack.runs(id, "Ingest"));
    etl.kill();
    stack.child("etl-1", "--roles", "ETL", "--dev-server");
    FaultStack.await(
        "the scoring to start",
        Duration.ofMinutes(3),
        () -> stack.runs(id + "/inference", "ScorePartition"));
    infer.kill();
    stack.child("infer-1", "--roles", "INFER", "--dev-server");

    PipelineResult result =
        stack
            .client
            .newUntypedWorkflowStub(id)
            .getResult(4, TimeUnit.MINUTES, PipelineResult.class);
    double minutes = (System.nanoTime() - t0) / 60e9;

    assertTrue(
        stack.retried(id).getOrDefault("Ingest", 0) >= 2,
        "the killed ingest was retried: " + stack.retried(id));
    assertTrue(
        stack.retried(id + "/inference").getOrDefault("ScorePartition", 0) >= 2,
        "the killed scoring was retried: " + stack.retried(id + "/inference"));
    // each retry came after one heartbeat timeout, not after the 30-minute start-to-close timeout
    assertTrue(minutes < 10, "the run took " + minutes + " min");

    Snapshot data =
        DeltaLog.forTable(new Configuration(), result.getIngest().getTable().getUri()).snapshot();
    assertEquals(0, data.getVersion(), "one version of the data table");
    assertEquals(70_000, data.getAllFiles().stream().mapToLong(f -> rows(f.getStats())).sum());
    Snapshot predictions =
        DeltaLog.forTable(new Configuration(), result.getInference().getPredictions().getUri())
            .snapshot();
    assertEquals(0, predictions.getVersion(), "one version of the predictions");
    Set<Long> ids = new HashSet<>();
    long rows = 0;
    try (CloseableIterator<RowRecord> it = predictions.open()) {
      while (it.hasNext()) {
        ids.add(it.next().getLong("id"));
        rows++;
      }
    }
    assertEquals(10_000, rows, "each test row scored once");
    assertEquals(10_000, ids.size());
    assertEquals(10_000, result.getInference().getRows());
    System.out.printf(
        "ETL and inference workers killed mid-activity; retried as %s and %s; finished in %.1f min%n",
        stack.retried(id), stack.retried(id + "/inference"), minutes);
  }

  /** {@code numRecords} of a data file's Delta statistics. */
  private static long rows(String statsJson) {
    Matcher m = Pattern.compile("\"numRecords\":(\\d+)").matcher(statsJson);
    if (!m.find()) {
      throw new AssertionError("no numRecords in " + statsJson);
    }
    return Long.parseLong(m.group(1));
  }
}
