package dev.keel.service.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.activities.catalog.CatalogActivities;
import dev.keel.activities.checkpoint.CheckpointGcActivities;
import dev.keel.api.v1.CatalogAppend;
import dev.keel.api.v1.CatalogRow;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.DescribeTableRequest;
import dev.keel.api.v1.GcRequest;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import io.delta.standalone.DeltaLog;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A CONTROL-role worker serves the catalog and checkpoint-GC activities on {@code keel-control}: a
 * probe workflow on another queue calls them the way the experiment workflow does.
 */
class ControlWorkerServesCatalogAndCheckpointGcTest {
  private static LoopbackTemporalServer server;
  private static KeelWorkerHost workers;
  private static WorkerFactory probes;
  private static Path storage;

  @WorkflowInterface
  public interface Probe {
    @WorkflowMethod
    String run(String checkpointUri);
  }

  public static final class ProbeImpl implements Probe {
    @Override
    public String run(String checkpointUri) {
      ActivityOptions options =
          ActivityOptions.newBuilder()
              .setTaskQueue(TaskQueues.CONTROL)
              .setStartToCloseTimeout(Duration.ofMinutes(1))
              .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build())
              .build();
      CatalogActivities catalog = Workflow.newActivityStub(CatalogActivities.class, options);
      StringBuilder out = new StringBuilder();
      try {
        catalog.describeTable(DescribeTableRequest.newBuilder().setTable("fashion").build());
      } catch (ActivityFailure e) {
        out.append(((ApplicationFailure) e.getCause()).getOriginalMessage()).append('\n');
      }
      CatalogAppend batch =
          CatalogAppend.newBuilder()
              .setExperimentId("probe")
              .setSequence(1)
              .addRows(
                  CatalogRow.newBuilder()
                      .setKind("metrics")
                      .setName("loss")
                      .setValue(0.5)
                      .setTimeMillis(1))
              .build();
      out.append(catalog.append(batch).getAlreadyCommitted())
          .append(' ')
          .append(catalog.append(batch).getAlreadyCommitted())
          .append('\n');
      CheckpointRef ref =
          CheckpointRef.newBuilder()
              .setUuid("c")
              .setExperimentId("probe")
              .setUri(checkpointUri)
              .build();
      out.append(
          Workflow.newActivityStub(CheckpointGcActivities.class, options)
              .collect(GcRequest.newBuilder().setExperimentId("probe").addDelete(ref).build())
              .getBytesFreed());
      return out.toString();
    }
  }

  @BeforeAll
  static void startStack() throws Exception {
    storage =
        Files.createDirectories(Path.of(System.getProperty("keel.test.tmp", "target/test-tmp")))
            .resolve("control-" + UUID.randomUUID());
    server = LoopbackTemporalServer.start(0);
    workers =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(server.address())
                .setStorageRoot(StorageRoot.of(storage.toString()))
                .optRoles(Set.of(Role.CONTROL))
                .optDevServer(true)
                .build());
    probes = WorkerFactory.newInstance(workers.client());
    probes.newWorker("catalog-probe").registerWorkflowImplementationTypes(ProbeImpl.class);
    probes.start();
  }

  @AfterAll
  static void stopStack() {
    probes.shutdownNow();
    workers.close();
    server.close();
  }

  @Test
  void catalogAndGcActivitiesRunOnTheControlQueueAgainstTheStorageRoot() throws Exception {
    Path checkpoint = Files.createDirectories(storage.resolve("checkpoints/probe/trial-1/c"));
    Files.writeString(checkpoint.resolve("MANIFEST"), "12345");
    Files.writeString(checkpoint.resolve("parameters.djl"), "1234567890");

    String result =
        workers
            .client()
            .newWorkflowStub(
                Probe.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue("catalog-probe")
                    .setWorkflowId("probe-" + UUID.randomUUID())
                    .setWorkflowExecutionTimeout(Duration.ofMinutes(2))
                    .build())
            .run(checkpoint.toUri().toString());

    String[] lines = result.split("\n");
    assertEquals(
        "table "
            + storage.resolve("tables/fashion").toUri()
            + " does not exist — run the ETL stage first",
        lines[0]);
    assertEquals("false true", lines[1], "the repeated batch wrote nothing");
    assertEquals("15", lines[2], "bytes freed");
    assertFalse(Files.exists(checkpoint));
    assertEquals(
        1,
        DeltaLog.forTable(new Configuration(), storage.resolve("_keel/metrics").toString())
            .snapshot()
            .getAllFiles()
            .size());
    assertTrue(Files.isDirectory(storage.resolve("_keel/metrics/_delta_log")));
  }
}
