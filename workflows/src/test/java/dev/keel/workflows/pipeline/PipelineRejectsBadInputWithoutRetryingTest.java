package dev.keel.workflows.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.workflows.testing.KeelTestEnvironments;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.common.v1.WorkflowType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.StartWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Bad requests end the workflow with the field-path message; none sits RUNNING retrying a task. */
class PipelineRejectsBadInputWithoutRetryingTest {
  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    env = KeelTestEnvironments.create();
    KeelTestEnvironments.control(env);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void invalidTypedRequestFailsWithEveryFieldPath() {
    PipelineWorkflow wf =
        client.newWorkflowStub(
            PipelineWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId("bad-" + UUID.randomUUID())
                .build());
    WorkflowFailedException e =
        assertThrows(
            WorkflowFailedException.class,
            () -> wf.run(PipelineRequest.newBuilder().setTargetTable("t").build()));
    ApplicationFailure cause = assertInstanceOf(ApplicationFailure.class, e.getCause());
    assertEquals(FailureTypes.INVALID_PIPELINE_REQUEST, cause.getType());
    assertTrue(
        cause.getOriginalMessage().contains("source: missing data source"),
        cause.getOriginalMessage());
    assertTrue(
        cause.getOriginalMessage().contains("experiment: required"), cause.getOriginalMessage());
  }

  @Test
  void undecodableJsonPlainInputFailsTheWorkflowInsteadOfRetryingItsTask() throws Exception {
    String id = "raw-bad-" + UUID.randomUUID();
    Payload payload =
        Payload.newBuilder()
            .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
            .setData(
                ByteString.copyFromUtf8(
                    "{\"source\": {\"formatt\": \"fashion_mnist\"}, \"target_table\": 3}"))
            .build();
    env.getWorkflowServiceStubs()
        .blockingStub()
        .startWorkflowExecution(
            StartWorkflowExecutionRequest.newBuilder()
                .setNamespace(env.getNamespace())
                .setWorkflowId(id)
                .setRequestId(UUID.randomUUID().toString())
                .setWorkflowType(WorkflowType.newBuilder().setName(PipelineWorkflow.TYPE))
                .setTaskQueue(TaskQueue.newBuilder().setName(TaskQueues.CONTROL))
                .setInput(Payloads.newBuilder().addPayloads(payload))
                .build());
    WorkflowStub stub = client.newUntypedWorkflowStub(id);
    WorkflowFailedException e =
        assertThrows(
            WorkflowFailedException.class,
            () -> stub.getResult(30, TimeUnit.SECONDS, PipelineRequest.class));
    String message = String.valueOf(e.getCause().getMessage());
    assertTrue(message.contains("source.formatt: unknown field"), message);
    assertTrue(message.contains("target_table: expected a string, got 3"), message);
    assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED, describe(id));
  }

  private WorkflowExecutionStatus describe(String id) {
    return env.getWorkflowServiceStubs()
        .blockingStub()
        .describeWorkflowExecution(
            DescribeWorkflowExecutionRequest.newBuilder()
                .setNamespace(env.getNamespace())
                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                .build())
        .getWorkflowExecutionInfo()
        .getStatus();
  }
}
