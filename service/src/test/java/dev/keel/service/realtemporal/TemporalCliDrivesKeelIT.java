package dev.keel.service.realtemporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.keel.api.v1.PipelineResult;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A user drives Keel with Temporal's own tools against the real server: {@code temporal workflow
 * start}/{@code result} from a shell, a visibility query on Keel's search attributes, the web UI in
 * a browser, and the Python SDK.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TemporalCliDrivesKeelIT {
  private static final String NAME = "it-cli-" + UUID.randomUUID().toString().substring(0, 8);
  private static final String WORKFLOW_ID = "pipeline-" + NAME;
  private static boolean completed;

  @Test
  @Order(1)
  void pipelineStartedWithTemporalWorkflowStartCompletes() throws Exception {
    RealTemporal.CliResult start =
        RealTemporal.temporal(
            Duration.ofSeconds(60),
            "workflow",
            "start",
            "--type",
            "Pipeline",
            "--task-queue",
            "keel-control",
            "--workflow-id",
            WORKFLOW_ID,
            "--input",
            RealTemporal.demoJson(NAME, 80));
    assertEquals(0, start.exitCode(), start.output());

    RealTemporal.CliResult result =
        RealTemporal.temporal(
            Duration.ofMinutes(8), "workflow", "result", "--workflow-id", WORKFLOW_ID);
    RealTemporal.writeArtifact("temporal-workflow-result.txt", result.output());
    assertEquals(0, result.exitCode(), result.output());
    assertTrue(result.output().contains("COMPLETED"), result.output());
    assertTrue(result.output().contains("\"accuracy\""), result.output());

    PipelineResult r =
        RealTemporal.client()
            .newUntypedWorkflowStub(WORKFLOW_ID)
            .getResult(10, TimeUnit.SECONDS, PipelineResult.class);
    assertEquals(80, r.getCheckpoint().getBatches());
    assertTrue(r.getInference().getAccuracy() > 0.5, "accuracy " + r.getInference().getAccuracy());
    completed = true;
  }

  @Test
  @Order(2)
  void listWorkflowExecutionsFindsTheRunByKeelSearchAttributes() {
    assumeTrue(
        completed, "needs the completed run of pipelineStartedWithTemporalWorkflowStartCompletes");
    String query =
        "KeelPipeline = '"
            + NAME
            + "' AND KeelStage = 'done' AND KeelTestAccuracy > 0.5"
            + " AND KeelDataTable STARTS_WITH 'file:' AND ExecutionStatus = 'Completed'";
    List<WorkflowExecutionInfo> found =
        RealTemporal.listUntilFound(query, 1, Duration.ofSeconds(30));
    assertEquals(1, found.size(), "ListWorkflowExecutions(" + query + ")");
    assertEquals(WORKFLOW_ID, found.get(0).getExecution().getWorkflowId());
    assertEquals("Pipeline", found.get(0).getType().getName());
    assertTrue(
        RealTemporal.list("KeelPipeline = '" + NAME + "' AND KeelStage = 'train'").isEmpty());
  }

  @Test
  @Order(3)
  void badInputStartedTheSameWayFailsWithFieldPaths() throws Exception {
    String id = "pipeline-it-bad-" + UUID.randomUUID().toString().substring(0, 8);
    RealTemporal.CliResult start =
        RealTemporal.temporal(
            Duration.ofSeconds(60),
            "workflow",
            "start",
            "--type",
            "Pipeline",
            "--task-queue",
            "keel-control",
            "--workflow-id",
            id,
            "--input",
            "{\"source\": {\"formatt\": \"fashion_mnist\"}, \"target_table\": 3}");
    assertEquals(0, start.exitCode(), start.output());
    RealTemporal.CliResult result =
        RealTemporal.temporal(Duration.ofSeconds(90), "workflow", "result", "--workflow-id", id);
    RealTemporal.writeArtifact("temporal-workflow-result-bad-input.txt", result.output());
    assertNotEquals(0, result.exitCode(), result.output());
    assertTrue(result.output().contains("FAILED"), result.output());
    assertTrue(result.output().contains("source.formatt: unknown field"), result.output());
    assertTrue(result.output().contains("target_table: expected a string, got 3"), result.output());
    assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED, status(id));
    // rejected before any workflow code ran, and still found by the failed-stage query
    assertEquals(
        1,
        RealTemporal.listUntilFound(
                "WorkflowId = '" + id + "' AND KeelStage = 'failed'", 1, Duration.ofSeconds(30))
            .size());

    String invalid = "pipeline-it-invalid-" + UUID.randomUUID().toString().substring(0, 8);
    assertEquals(
        0,
        RealTemporal.temporal(
                Duration.ofSeconds(60),
                "workflow",
                "start",
                "--type",
                "Pipeline",
                "--task-queue",
                "keel-control",
                "--workflow-id",
                invalid,
                "--input",
                "{\"name\": \"it-invalid\", \"target_table\": \"t\"}")
            .exitCode());
    RealTemporal.CliResult failed =
        RealTemporal.temporal(
            Duration.ofSeconds(90), "workflow", "result", "--workflow-id", invalid);
    assertTrue(failed.output().contains("source: missing data source"), failed.output());
    assertTrue(failed.output().contains("experiment: required"), failed.output());
    assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED, status(invalid));
    assertEquals(
        1,
        RealTemporal.listUntilFound(
                "KeelPipeline = 'it-invalid' AND KeelStage = 'failed'", 1, Duration.ofSeconds(30))
            .size());
  }

  @Test
  @Order(4)
  void webUiShowsTheRunItsActivitiesAndSearchAttributes() throws Exception {
    assumeTrue(
        completed, "needs the completed run of pipelineStartedWithTemporalWorkflowStartCompletes");
    Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    Path modules = RealTemporal.home().resolve(".tools/node/node_modules");
    assumeTrue(
        Files.isExecutable(chromium),
        "no Chromium at " + chromium + " (apt-get install -y chromium; .ci/run does)");
    assumeTrue(
        Files.isDirectory(modules.resolve("playwright-core")),
        "no playwright-core in "
            + modules
            + " (npm install --prefix .tools/node playwright-core; .ci/run does)");
    Path shots = RealTemporal.itDir().resolve("screenshots");
    Files.createDirectories(shots);
    Path log = RealTemporal.itDir().resolve("ui-check.log");
    ProcessBuilder pb =
        new ProcessBuilder(
                "node",
                RealTemporal.home().resolve("service/src/it/browser/ui-check.js").toString(),
                RealTemporal.stack().uiUrl(),
                WORKFLOW_ID,
                NAME,
                shots.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("NODE_PATH", modules.toString());
    pb.environment().put("CHROMIUM", chromium.toString());
    Process p = pb.start();
    assertTrue(p.waitFor(3, TimeUnit.MINUTES), "ui-check.js did not finish in 3 minutes");
    String out = KeelDevProcess.read(log);
    assertEquals(0, p.exitValue(), out);
    assertTrue(Files.size(shots.resolve("ui-2-workflow-history.png")) > 10_000, "screenshot");
  }

  @Test
  @Order(5)
  void pythonSdkStartsThePipelineWithATypedPayload() throws Exception {
    Path python = RealTemporal.home().resolve(".tools/pyenv/bin/python");
    assumeTrue(
        Files.isExecutable(python),
        "no Python venv at .tools/pyenv with temporalio and grpcio-tools"
            + " (python3 -m venv .tools/pyenv && .tools/pyenv/bin/pip install -r examples/python/requirements.txt; .ci/run does)");
    String id = "pipeline-it-python-" + UUID.randomUUID().toString().substring(0, 8);
    Path log = RealTemporal.itDir().resolve("python-example.log");
    Process p =
        new ProcessBuilder(
                python.toString(),
                RealTemporal.home().resolve("examples/python/start_pipeline.py").toString(),
                "--address",
                RealTemporal.stack().address(),
                "--workflow-id",
                id,
                "--name",
                "it-python",
                "--batches",
                "60")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    assertTrue(p.waitFor(8, TimeUnit.MINUTES), "start_pipeline.py did not finish in 8 minutes");
    String out = KeelDevProcess.read(log);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("Started pipeline " + id), out);
    assertTrue(out.contains("test accuracy 0."), out);
    assertTrue(out.contains("(60 batches)"), out);
    PipelineResult r =
        RealTemporal.client()
            .newUntypedWorkflowStub(id)
            .getResult(10, TimeUnit.SECONDS, PipelineResult.class);
    assertTrue(
        r.getInference().getPredictions().getUri().contains("fashion_mnist_predictions_python"),
        r.toString());
  }

  private static WorkflowExecutionStatus status(String id) {
    return RealTemporal.stubs()
        .blockingStub()
        .describeWorkflowExecution(
            DescribeWorkflowExecutionRequest.newBuilder()
                .setNamespace("default")
                .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                .build())
        .getWorkflowExecutionInfo()
        .getStatus();
  }
}
