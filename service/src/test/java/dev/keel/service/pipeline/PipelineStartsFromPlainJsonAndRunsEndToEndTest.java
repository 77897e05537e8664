package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.util.JsonFormat;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.data.CloseableIterator;
import io.delta.standalone.data.RowRecord;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowType;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.StartWorkflowExecutionRequest;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pipeline started the way the Temporal CLI starts it — a raw gRPC StartWorkflowExecution with
 * a json/plain payload, no typed stub — runs ETL, training and inference on the real Fashion-MNIST
 * files through a loopback Temporal server, and leaves tables an independent Delta reader can read;
 * the pipeline list then shows the run with its stage, data, test accuracy and close time.
 */
class PipelineStartsFromPlainJsonAndRunsEndToEndTest {
  private static final long BATCHES = 120;
  private static InProcessStack stack;
  private static KeelWorkerHost workers;

  private static String id;
  private static PipelineResult result;

  @BeforeAll
  static void runPipeline() throws Exception {
    stack = InProcessStack.start("e2e");
    workers = stack.workers;
    PipelineRequest.Builder request =
        DemoRequest.load(Path.of(DemoRequest.DEFAULT_DATA), BATCHES).toBuilder();
    String json = JsonFormat.printer().print(request);

    id = "e2e-" + UUID.randomUUID();
    workers
        .stubs()
        .blockingStub()
        .startWorkflowExecution(
            StartWorkflowExecutionRequest.newBuilder()
                .setNamespace("default")
                .setWorkflowId(id)
                .setRequestId(UUID.randomUUID().toString())
                .setWorkflowType(WorkflowType.newBuilder().setName(PipelineWorkflow.TYPE))
                .setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.CONTROL))
                .setInput(
                    Payloads.newBuilder()
                        .addPayloads(
                            Payload.newBuilder()
                                .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
                                .setData(ByteString.copyFromUtf8(json))))
                .build());
    result =
        workers
            .client()
            .newUntypedWorkflowStub(id)
            .getResult(10, TimeUnit.MINUTES, PipelineResult.class);
  }

  @AfterAll
  static void stopStack() {
    stack.close();
  }

  @Test
  void plainJsonStartRunsAllThreeStagesOnRealData() throws Exception {
    assertEquals(70_000, result.getIngest().getRows());
    assertEquals(BATCHES, result.getCheckpoint().getBatches());
    assertEquals(10_000, result.getInference().getRows());
    // 120 Adam steps of a small CNN land well above chance (0.1) on Fashion-MNIST.
    assertTrue(
        result.getInference().getAccuracy() > 0.6,
        "accuracy " + result.getInference().getAccuracy());
    assertEquals(result.getCheckpoint().getUuid(), result.getInference().getCheckpointUuid());
    assertTrue(Files.isDirectory(Path.of(URI.create(result.getCheckpoint().getUri()))));

    Snapshot data =
        DeltaLog.forTable(new Configuration(), result.getIngest().getTable().getUri()).snapshot();
    assertEquals(result.getIngest().getTable().getVersion(), data.getVersion());
    assertEquals(70_000, count(data));

    Snapshot predictions =
        DeltaLog.forTable(new Configuration(), result.getInference().getPredictions().getUri())
            .snapshot();
    assertEquals(10_000, count(predictions));
    Set<String> checkpointIds = new HashSet<>();
    Set<Long> sourceVersions = new HashSet<>();
    try (CloseableIterator<RowRecord> rows = predictions.open()) {
      while (rows.hasNext()) {
        RowRecord r = rows.next();
        checkpointIds.add(r.getString("checkpoint_id"));
        sourceVersions.add(r.getLong("source_table_version"));
        int label = r.getInt("predicted_label");
        assertTrue(label >= 0 && label < 10, "label " + label);
      }
    }
    assertEquals(Set.of(result.getCheckpoint().getUuid()), checkpointIds);
    assertEquals(Set.of(result.getIngest().getTable().getVersion()), sourceVersions);
  }

  /**
   * On the Java test server (whose lists carry no search attributes or close times) the pipeline
   * list still shows the run's last stage, data table, test accuracy and close time, as the
   * dashboard's Pipelines page and {@code keel pipeline list} show them.
   */
  @Test
  void pipelineListShowsTheRunsStageDataTestAccuracyAndCloseTime() throws Exception {
    JsonNode list =
        new ObjectMapper()
            .readTree(
                PipelineList.json(PipelineList.page(workers.client(), Optional.empty(), 0, 50)));
    JsonNode row = null;
    for (JsonNode p : list.get("pipelines")) {
      if (p.get("pipeline_id").asText().equals(id)) {
        row = p;
      }
    }
    assertNotNull(row, list.toString());
    assertEquals("completed", row.path("status").asText(), row.toString());
    assertEquals("done", row.path("stage").asText(), row.toString());
    assertEquals(
        result.getIngest().getTable().getUri(), row.path("data_table").asText(), row.toString());
    assertEquals(
        result.getInference().getAccuracy(),
        row.path("test_accuracy").asDouble(),
        1e-9,
        row.toString());
    Instant started = Instant.parse(row.path("started").asText());
    Instant closed = Instant.parse(row.path("closed").asText(""));
    assertTrue(closed.isAfter(started), row.toString());
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
