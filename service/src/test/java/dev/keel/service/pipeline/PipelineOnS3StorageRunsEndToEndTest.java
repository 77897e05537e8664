package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.service.api.ApiServer;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.S3ProxyExtension;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.data.CloseableIterator;
import io.delta.standalone.data.RowRecord;
import io.temporal.api.history.v1.History;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The whole pipeline with an {@code s3://bucket/prefix} storage root (embedded S3Proxy on
 * 127.0.0.1, configured through the AWS endpoint/region/credential settings): the source table, the
 * checkpoints, the catalog, the registered model and the predictions table all land in the bucket,
 * and nothing lands on local disk outside temporary directories; and the S3 credentials appear
 * nowhere a user or an operator reads: Keel's logs, the workflow histories, the API's answers, the
 * bucket.
 */
@ExtendWith(S3ProxyExtension.class)
class PipelineOnS3StorageRunsEndToEndTest {
  private static final long BATCHES = 60;
  private static LoopbackTemporalServer server;
  private static KeelWorkerHost workers;
  private static String bucket;
  private static Set<String> localBefore;
  private static final ListAppender<ILoggingEvent> LOGS = new ListAppender<>();
  private static String workflowId;
  private static PipelineResult result;

  @BeforeAll
  static void startStack() throws Exception {
    LOGS.start();
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME))
        .addAppender(LOGS);
    localBefore = localFiles();
    bucket = S3ProxyExtension.newBucket("e2e");
    server = LoopbackTemporalServer.start(0);
    workers =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(server.address())
                .setStorageRoot(StorageRoot.of("s3://" + bucket + "/keel"))
                .optDevServer(true)
                .optTrainThreads(2)
                .build());
    PipelineRequest.Builder request =
        DemoRequest.load(Path.of(DemoRequest.DEFAULT_DATA), BATCHES).toBuilder();
    workflowId = "s3-e2e-" + UUID.randomUUID();
    PipelineWorkflow pipeline =
        workers
            .client()
            .newWorkflowStub(
                PipelineWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(workflowId)
                    .build());
    result = pipeline.run(request.build());
  }

  @AfterAll
  static void stopStack() {
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME))
        .detachAppender(LOGS);
    workers.close();
    server.close();
  }

  @Test
  void tablesAndCheckpointsLiveInTheBucket() throws Exception {

    String root = "s3://" + bucket + "/keel/";
    assertEquals(root + "tables/fashion_mnist", result.getIngest().getTable().getUri());
    assertEquals(70_000, result.getIngest().getRows());
    assertEquals(BATCHES, result.getCheckpoint().getBatches());
    String checkpoint = result.getCheckpoint().getUri();
    assertEquals(
        root + "models/fashion-mnist-demo/1/" + result.getCheckpoint().getUuid() + "/", checkpoint);
    assertTrue(
        result
            .getModel()
            .getSourceCheckpointUri()
            .startsWith(root + "checkpoints/" + result.getExperimentId() + "/trial-1/"),
        result.getModel().getSourceCheckpointUri());
    assertEquals(
        root + "tables/fashion-mnist-demo_predictions",
        result.getInference().getPredictions().getUri());
    assertEquals(10_000, result.getInference().getRows());
    assertTrue(
        result.getInference().getAccuracy() > 0.3,
        "accuracy " + result.getInference().getAccuracy());

    List<String> keys =
        S3ProxyExtension.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
            .map(S3Object::key)
            .sorted()
            .collect(Collectors.toList());
    String ckptPrefix = checkpoint.substring(("s3://" + bucket + "/").length());
    assertEquals(
        List.of("MANIFEST", "metadata.json", "optimizer.bin", "parameters.djl"),
        keys.stream()
            .filter(k -> k.startsWith(ckptPrefix))
            .map(k -> k.substring(ckptPrefix.length()))
            .sorted()
            .toList());
    assertTrue(
        keys.contains("keel/tables/fashion_mnist/_delta_log/00000000000000000000.json"),
        keys.toString());
    assertTrue(
        keys.contains(
            "keel/tables/fashion-mnist-demo_predictions/_delta_log/00000000000000000000.json"),
        keys.toString());
    assertTrue(
        keys.contains("keel/_keel/models/_delta_log/00000000000000000000.json"), keys.toString());
    assertTrue(
        keys.stream()
            .allMatch(
                k ->
                    k.startsWith("keel/tables/")
                        || k.startsWith("keel/checkpoints/")
                        || k.startsWith("keel/models/")
                        || k.startsWith("keel/_keel/")),
        keys.toString());

    // an independent reader (Delta Standalone over S3A) sees the same tables
    Configuration conf = new Configuration();
    S3ProxyExtension.settings().hadoopProperties().forEach(conf::set);
    Snapshot data =
        DeltaLog.forTable(conf, "s3a://" + bucket + "/keel/tables/fashion_mnist").snapshot();
    assertEquals(result.getIngest().getTable().getVersion(), data.getVersion());
    Snapshot predictions =
        DeltaLog.forTable(conf, "s3a://" + bucket + "/keel/tables/fashion-mnist-demo_predictions")
            .snapshot();
    assertEquals(10_000, count(predictions));

    assertEquals(
        localBefore, localFiles(), "files appeared on local disk outside temporary directories");
  }

  @Test
  void theCredentialsAppearInNoLogHistoryApiAnswerOrObject() throws Exception {
    List<String> secrets = List.of(S3ProxyExtension.SECRET_KEY, S3ProxyExtension.ACCESS_KEY);

    List<ILoggingEvent> events = List.copyOf(LOGS.list);
    // the grep below reads this run's INFO logs, the credential-bearing S3 work included
    assertTrue(
        events.stream()
            .anyMatch(
                e -> e.getFormattedMessage().startsWith("ingested 70000 rows into s3://" + bucket)),
        "the run's ingest line was captured among " + events.size() + " events");
    for (ILoggingEvent e : events) {
      String line =
          e.getFormattedMessage()
              + (e.getThrowableProxy() == null
                  ? ""
                  : ThrowableProxyUtil.asString(e.getThrowableProxy()));
      assertNone(secrets, line, "log line of " + e.getLoggerName());
    }

    // the pipeline and every child it started, as the server stores them (raw protobuf: payloads
    // included)
    List<String> ids = new ArrayList<>(List.of(workflowId));
    for (int i = 0; i < ids.size(); i++) {
      History history = workers.client().fetchHistory(ids.get(i)).getHistory();
      assertNone(
          secrets,
          new String(history.toByteArray(), StandardCharsets.ISO_8859_1),
          "history of " + ids.get(i));
      history.getEventsList().stream()
          .filter(HistoryEvent::hasStartChildWorkflowExecutionInitiatedEventAttributes)
          .map(ev -> ev.getStartChildWorkflowExecutionInitiatedEventAttributes().getWorkflowId())
          .forEach(ids::add);
    }
    assertTrue(ids.size() >= 3, "the pipeline's children were walked too: " + ids);

    try (ApiServer api =
        ApiServer.start(
            "127.0.0.1", 0, workers.client(), StorageRoot.of("s3://" + bucket + "/keel"))) {
      HttpClient http = HttpClient.newHttpClient();
      String model = result.getModel().getName();
      for (String path :
          List.of(
              "/api/v1/pipelines/" + workflowId,
              "/api/v1/models",
              "/api/v1/models/" + model,
              "/api/v1/models/" + model + "/" + result.getModel().getVersion(),
              "/api/v1/data/describe?table=fashion_mnist",
              "/api/v1/experiments/" + result.getExperimentId(),
              "/api/v1/experiments/" + result.getExperimentId() + "/view",
              "/api/v1/data",
              "/metrics",
              "/health/readiness")) {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(api.url() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        assertNone(secrets, r.body(), "GET " + path);
        if (path.equals("/api/v1/data")) {
          // the tables of an S3 root, listed by their common prefixes
          assertTrue(
              r.body().contains("\"name\" : \"fashion_mnist\"")
                  && r.body().contains("\"total\" : 2"),
              r.body());
        }
      }
    }

    // every object, the catalog and the Delta logs included (Parquet is Snappy-compressed: a string
    // written once stays a literal run, so it would still show)
    List<String> keys =
        S3ProxyExtension.client().listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream()
            .map(S3Object::key)
            .toList();
    for (String key : keys) {
      byte[] bytes =
          S3ProxyExtension.client().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
      assertNone(
          secrets, new String(bytes, StandardCharsets.ISO_8859_1), "s3://" + bucket + "/" + key);
    }
  }

  private static void assertNone(List<String> secrets, String text, String where) {
    for (String secret : secrets) {
      assertFalse(
          text.contains(secret),
          where + " contains the credential " + secret.substring(0, 4) + "…");
    }
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
