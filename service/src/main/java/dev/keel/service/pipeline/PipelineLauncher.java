package dev.keel.service.pipeline;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Starts pipeline workflows with readable ids and reads their progress. */
public final class PipelineLauncher {
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private PipelineLauncher() {}

  /** Starts without waiting; the id reads {@code pipeline-<name>-<utc time>}. */
  public static String start(WorkflowClient client, PipelineRequest request) {
    String name = request.getName().isBlank() ? "unnamed" : request.getName().replaceAll("[^A-Za-z0-9_.-]", "-");
    String id = "pipeline-" + name + "-" + STAMP.format(Instant.now()) + "-" + Long.toHexString(System.nanoTime() & 0xffff);
    PipelineWorkflow wf = client.newWorkflowStub(PipelineWorkflow.class,
        WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.CONTROL).setWorkflowId(id)
            .setStaticSummary("Keel pipeline " + name + ": ETL of " + request.getSource().getFormat() + " into Delta table "
                + request.getTargetTable() + ", training, batch inference")
            .build());
    WorkflowClient.start(wf::run, request);
    return id;
  }

  public static PipelineProgress progress(WorkflowClient client, String id) {
    return client.newWorkflowStub(PipelineWorkflow.class, id).progress();
  }
}
