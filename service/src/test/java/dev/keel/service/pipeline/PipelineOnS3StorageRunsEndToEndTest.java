package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.S3ProxyExtension;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.data.CloseableIterator;
import io.delta.standalone.data.RowRecord;
import io.temporal.client.WorkflowOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The whole pipeline with an {@code s3://bucket/prefix} storage root (embedded S3Proxy on
 * 127.0.0.1, configured through the AWS endpoint/region/credential settings): the source table,
 * the checkpoints, the catalog, the registered model and the predictions table all land in the
 * bucket, and nothing lands on local disk outside temporary directories.
 */
@ExtendWith(S3ProxyExtension.class)
class PipelineOnS3StorageRunsEndToEndTest {
  private static final long BATCHES = 60;
  private static LoopbackTemporalServer server;
  private static KeelWorkerHost workers;
  private static String bucket;
  private static Set<String> localBefore;

  @BeforeAll
  static void startStack() throws Exception {
    localBefore = localFiles();
    bucket = S3ProxyExtension.newBucket("e2e");
    server = LoopbackTemporalServer.start(0);
    workers = KeelWorkerHost.start(WorkerHostOptions.newBuilder()
        .setTemporalAddress(server.address())
        .setStorageRoot(StorageRoot.of("s3://" + bucket + "/keel"))
        .optDevServer(true)
        .optTrainThreads(2)
        .build());
  }

  @AfterAll
  static void stopStack() {
    workers.close();
    server.close();
  }

  @Test
  void tablesAndCheckpointsLiveInTheBucket() throws Exception {
    PipelineRequest.Builder request = DemoRequest.load(Path.of(DemoRequest.DEFAULT_DATA), BATCHES).toBuilder();
    PipelineWorkflow pipeline = workers.client().newWorkflowStub(PipelineWorkflow.class,
        WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId("s3-e2e-" + UUID.randomUUID()).build());
    PipelineResult result = pipeline.run(request.build());

    String root = "s3://" + bucket + "/keel/";
    assertEquals(root + "tables/fashion_mnist", result.getIngest().getTable().getUri());
    assertEquals(70_000, result.getIngest().getRows());
    assertEquals(BATCHES, result.getCheckpoint().getBatches());
    String checkpoint = result.getCheckpoint().getUri();
    assertEquals(root + "models/fashion-mnist-demo/1/" + result.getCheckpoint().getUuid() + "/", checkpoint);
    assertTrue(result.getModel().getSourceCheckpointUri().startsWith(root + "checkpoints/" + result.getExperimentId() + "/trial-1/"),
        result.getModel().getSourceCheckpointUri());
    assertEquals(root + "tables/fashion-mnist-demo_predictions", result.getInference().getPredictions().getUri());
    assertEquals(10_000, result.getInference().getRows());
    assertTrue(result.getInference().getAccuracy() > 0.3, "accuracy " + result.getInference().getAccuracy());

    List<String> keys = S3ProxyExtension.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
        .map(S3Object::key).sorted().collect(Collectors.toList());
    String ckptPrefix = checkpoint.substring(("s3://" + bucket + "/").length());
    assertEquals(List.of("MANIFEST", "metadata.json", "optimizer.bin", "parameters.djl"),
        keys.stream().filter(k -> k.startsWith(ckptPrefix)).map(k -> k.substring(ckptPrefix.length())).sorted().toList());
    assertTrue(keys.contains("keel/tables/fashion_mnist/_delta_log/00000000000000000000.json"), keys.toString());
    assertTrue(keys.contains("keel/tables/fashion-mnist-demo_predictions/_delta_log/00000000000000000000.json"), keys.toString());
    assertTrue(keys.contains("keel/_keel/models/_delta_log/00000000000000000000.json"), keys.toString());
    assertTrue(keys.stream().allMatch(k -> k.startsWith("keel/tables/") || k.startsWith("keel/checkpoints/")
        || k.startsWith("keel/models/") || k.startsWith("keel/_keel/")), keys.toString());

    // an independent reader (Delta Standalone over S3A) sees the same tables
    Configuration conf = new Configuration();
    S3ProxyExtension.settings().hadoopProperties().forEach(conf::set);
    Snapshot data = DeltaLog.forTable(conf, "s3a://" + bucket + "/keel/tables/fashion_mnist").snapshot();
    assertEquals(result.getIngest().getTable().getVersion(), data.getVersion());
    Snapshot predictions = DeltaLog.forTable(conf, "s3a://" + bucket + "/keel/tables/fashion-mnist-demo_predictions").snapshot();
    assertEquals(10_000, count(predictions));

    assertEquals(localBefore, localFiles(), "files appeared on local disk outside temporary directories");
  }

  /** What the working directory and the tests' scratch directory hold (ignoring build output). */
  private static Set<String> localFiles() throws IOException {
    Set<String> names = new TreeSet<>();
    try (Stream<Path> cwd = Files.list(Path.of(""))) {
      cwd.map(p -> p.getFileName().toString()).forEach(names::add);
    }
    Path scratch = Path.of(System.getProperty("keel.test.tmp", "target/test-tmp"));
    if (Files.isDirectory(scratch)) {
      try (Stream<Path> s = Files.walk(scratch)) {
        s.map(Path::toString).forEach(names::add);
      }
    }
    assertFalse(names.contains("keel-data"), "a local keel-data directory exists");
    return names;
  }

  private static long count(Snapshot snapshot) throws Exception {
    long n = 0;
    try (CloseableIterator<RowRecord> rows = snapshot.open()) {
      while (rows.hasNext()) {
        rows.next();
        n++;
      }
    }
    return n;
  }
}
