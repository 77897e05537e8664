package dev.keel.service.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.ExperimentResult;
import dev.keel.api.v1.PipelineResult;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.fault.FaultStack.ChildWorker;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.registry.ModelRegistryTable;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.experiment.TrialWorkflow;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.delta.standalone.DeltaLog;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CONTROL worker runs the pipeline and its child workflows in its own JVM and is killed with
 * SIGKILL three times, each while a stage's work runs on the other workers (the ETL's ingest, the
 * trial's training, the inference's scoring); it stays dead until that work has finished, so the
 * step to the next stage falls to a new CONTROL process that rebuilds the workflows from their
 * histories. The run finishes, and no stage ran twice: each activity of each stage was scheduled
 * once and started once, and the table, the registry and the predictions each hold one version.
 */
class PipelineControlWorkerKilledBetweenStagesRedoesNoStageTest {
  private static final String PIPELINE =
      """
      name: killed-control
      source: {format: fashion_mnist, uri: /usr/share/datasets/fashion-mnist}
      target_table: fashion_mnist
      experiment:
        name: killed-control
        hyperparameters: {lr: 0.003, batch_size: 64, width: 8, hidden: 32, dropout: 0.0, optimizer: adam}
        searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 300}}
        min_checkpoint_period: {batches: 300}
        reproducibility: {seed: 5}
        model: {name: fashion_cnn}
      """;

  private static FaultStack stack;
  private static final List<ChildWorker> controls = new ArrayList<>();

  @BeforeAll
  static void startStack() throws Exception {
    stack = FaultStack.start("killed-control-pipeline");
    stack.inProcess(Set.of(Role.ETL, Role.TRAIN, Role.INFER), 1);
  }

  @AfterAll
  static void stopStack() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void eachStageRunsOnceAndTheRunFinishes() throws Exception {
    String id = "killed-control-pipeline";
    controls.add(stack.child("control-0", "--roles", "CONTROL", "--dev-server"));
    WorkflowClient.start(
        stack.client.newWorkflowStub(
                PipelineWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId(id)
                    .build())
            ::run,
        ExperimentConfigLoaders.pipelineLoader().fromYaml(PIPELINE));

    killWhileItRuns("the ETL's Ingest", () -> id, "Ingest");
    String trial = TrialWorkflow.workflowId(ExperimentWorkflow.childId(id), 1);
    killWhileItRuns("the trial's Train", () -> trial, "Train");
    killWhileItRuns("the inference's ScorePartition", () -> id + "/inference", "ScorePartition");

    PipelineResult result =
        stack
            .client
            .newUntypedWorkflowStub(id)
            .getResult(3, TimeUnit.MINUTES, PipelineResult.class);
    ExperimentResult experiment =
        stack
            .client
            .newUntypedWorkflowStub(result.getExperimentId())
            .getResult(ExperimentResult.class);

    assertEquals(
        Map.of("Ingest", 1, "RegisterModel", 1),
        only(stack.scheduled(id), "Ingest", "RegisterModel"),
        "activities of the pipeline");
    assertEquals(
        1,
        childStarts(id).getOrDefault(result.getExperimentId(), 0),
        "experiment child started once");
    assertEquals(
        1, childStarts(id).getOrDefault(id + "/inference", 0), "inference child started once");
    assertEquals(
        Map.of("Train", 1), only(stack.scheduled(trial), "Train"), "activities of the trial");
    Map<String, Integer> inference = stack.scheduled(id + "/inference");
    assertEquals(1, inference.get("CommitPredictions"), inference.toString());
    assertEquals(
        result.getInference().getPartitions(),
        inference.get("ScorePartition"),
        inference.toString());
    for (String workflow : List.of(id, trial, id + "/inference")) {
      assertTrue(
          stack.retried(workflow).isEmpty(), workflow + " retried " + stack.retried(workflow));
    }

    assertEquals(300, experiment.getBestCheckpoint().getBatches());
    ModelRegistryTable registry = new ModelRegistryTable(StorageRoot.of(stack.storage.toString()));
    assertEquals(1, registry.list().size(), registry.list().toString());
    assertEquals(0, result.getIngest().getTable().getVersion());
    assertEquals(
        0, latestVersion(result.getIngest().getTable().getUri()), "one version of the data table");
    assertEquals(0, result.getInference().getPredictions().getVersion());
    assertEquals(
        0,
        latestVersion(result.getInference().getPredictions().getUri()),
        "one version of the predictions");
    assertEquals(10_000, result.getInference().getRows());
    assertTrue(
        result.getInference().getAccuracy() > 0.6,
        "accuracy " + result.getInference().getAccuracy());
    assertTrue(
        controls.get(3).logText().contains("Keel workers [CONTROL]"), controls.get(3).logText());
    System.out.printf(
        "control worker killed 3 times between stages; pipeline finished with accuracy %.4f, "
            + "each stage once%n",
        result.getInference().getAccuracy());
  }

  /**
   * Waits until {@code activity} runs in the workflow, kills the CONTROL worker, waits until the
   * activity has finished (its result sits in the history, no workflow task can take it yet), and
   * starts a new CONTROL worker.
   */
  private static void killWhileItRuns(String what, Supplier<String> workflowId, String activity)
      throws Exception {
    FaultStack.await(
        what + " to start", Duration.ofMinutes(2), () -> stack.runs(workflowId.get(), activity));
    controls.get(controls.size() - 1).kill();
    FaultStack.await(
        what + " to finish with no CONTROL worker",
        Duration.ofMinutes(2),
        () -> !stack.runs(workflowId.get(), activity));
    assertTrue(
        stack.running(workflowId.get()), workflowId.get() + " ended without a CONTROL worker");
    controls.add(stack.child("control-" + controls.size(), "--roles", "CONTROL", "--dev-server"));
  }

  private static Map<String, Integer> only(Map<String, Integer> counts, String... types) {
    Map<String, Integer> out = new TreeMap<>();
    for (String t : types) {
      out.put(t, counts.getOrDefault(t, 0));
    }
    return out;
  }

  private static Map<String, Integer> childStarts(String workflowId) {
    Map<String, Integer> out = new TreeMap<>();
    for (HistoryEvent e : stack.history(workflowId)) {
      if (e.getEventType() == EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED) {
        out.merge(
            e.getStartChildWorkflowExecutionInitiatedEventAttributes().getWorkflowId(),
            1,
            Integer::sum);
      }
    }
    return out;
  }

  private static long latestVersion(String uri) {
    return DeltaLog.forTable(new Configuration(), uri).update().getVersion();
  }
}
