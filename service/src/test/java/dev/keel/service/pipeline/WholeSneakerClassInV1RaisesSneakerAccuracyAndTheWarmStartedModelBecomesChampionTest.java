package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ClassAccuracy;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.ModelSelector;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.api.v1.PipelineWarmStart;
import dev.keel.service.model.ModelTable;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.registry.ModelRegistryTable;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.delta.standalone.DeltaLog;
import io.delta.standalone.data.CloseableIterator;
import io.delta.standalone.data.RowRecord;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The data-versioning story on the real Fashion-MNIST files: table v0 holds only 50 of the 6,000
 * training sneakers, and the model trained on it rarely recognises a sneaker; v1 holds the whole
 * class, and the same pipeline request with only the data changed, warm-started from the champion,
 * recognises most of the 1,000 test sneakers, becomes champion, and its predictions name v1.
 */
class WholeSneakerClassInV1RaisesSneakerAccuracyAndTheWarmStartedModelBecomesChampionTest {
  private static final Path DATA = Path.of("/usr/share/datasets/fashion-mnist");
  private static final int SNEAKER = 7;
  private static InProcessStack stack;

  @BeforeAll
  static void startStack() throws Exception {
    stack = InProcessStack.start("story");
  }

  @AfterAll
  static void stopStack() {
    stack.close();
  }

  @Test
  void theWholeClassRaisesItsAccuracyAndTheWarmStartedModelBecomesChampion() throws Exception {
    // the request `keel demo --story` runs (300 batches per run)
    PipelineRequest first = StoryRequests.fewOfOneClass(DATA);
    long batches = first.getExperiment().getSearcher().getMaxLength().getBatches();
    PipelineRequest second = StoryRequests.wholeClassFromTheChampion(first);
    assertEquals(
        first.toBuilder().clearSource().build(),
        second.toBuilder().clearSource().clearWarmStart().build(),
        "besides the data, the second request only adds the warm start");

    PipelineResult v0 = run("story-v0", first);
    assertEquals(0, v0.getData().getVersion());
    assertEquals(
        1_050, v0.getIngest().getRowsPerLabelOrThrow("Sneaker"), "50 train + 1,000 test sneakers");
    assertEquals(1, v0.getModel().getVersion());
    assertEquals(
        ModelStage.champion, v0.getModel().getStage(), "the first version has no champion to beat");
    ClassAccuracy sneakerBefore = v0.getInference().getClasses(SNEAKER);
    assertEquals("Sneaker", sneakerBefore.getName());
    assertEquals(1_000, sneakerBefore.getRows(), "the test split is whole in v0");

    PipelineResult v1 = run("story-v1", second);
    assertEquals(1, v1.getData().getVersion());
    assertEquals(7_000, v1.getIngest().getRowsPerLabelOrThrow("Sneaker"));
    ClassAccuracy sneakerAfter = v1.getInference().getClasses(SNEAKER);
    assertEquals(1_000, sneakerAfter.getRows());
    System.out.println(
        String.join("\n", PerClassTable.lines(v0.getInference(), v1.getInference(), "v0", "v1")));

    // the warm start: from v1 of the model (the champion), its lengths counted on from its
    // checkpoint
    assertEquals(
        v0.getModel().getCheckpoint().getUuid(), v1.getWarmStart().getCheckpoint().getUuid());
    assertEquals(
        ModelVersionRef.newBuilder().setName(v0.getModel().getName()).setVersion(1).build(),
        v1.getModel().getWarmStartedFrom());
    assertEquals(2 * batches, v1.getCheckpoint().getBatches());

    // the story: poor before, substantially better after (measured at 300 batches: 0.073 -> 0.953)
    assertTrue(
        sneakerBefore.getAccuracy() < 0.3,
        "sneaker accuracy with 50 training sneakers: " + sneakerBefore.getAccuracy());
    assertTrue(
        sneakerAfter.getAccuracy() > 0.7
            && sneakerAfter.getAccuracy() > sneakerBefore.getAccuracy() + 0.5,
        "sneaker accuracy " + sneakerBefore.getAccuracy() + " -> " + sneakerAfter.getAccuracy());

    // champion/challenger on v1's test split: the champion re-scored gives what it scored on v0
    // (same test rows)
    var comparison = v1.getComparison();
    assertEquals(1, comparison.getChampion().getVersion());
    assertEquals(v0.getInference().getAccuracy(), comparison.getChampionValue(), 1e-12);
    assertEquals(v0.getInference().getClassesList(), comparison.getChampionClassesList());
    assertEquals(v1.getInference().getClassesList(), comparison.getChallengerClassesList());
    assertEquals(Comparison.Decision.promoted, comparison.getDecision());
    assertEquals(ModelStage.champion, v1.getModel().getStage());
    ModelRegistryTable registry = new ModelRegistryTable(StorageRoot.of(stack.storage.toString()));
    assertEquals(ModelStage.archived, registry.describe(v0.getModel().getName(), 1).getStage());
    assertEquals(
        1, registry.describe(v0.getModel().getName(), 2).getWarmStartedFrom().getVersion());
    assertTrue(
        ModelTable.describe(registry.describe(v0.getModel().getName(), 2))
            .contains("warm-started:    from " + v0.getModel().getName() + " v1\n"));

    // lineage: the second run's prediction rows name table v1 and the new model
    Set<Long> versions = new HashSet<>();
    Set<String> checkpoints = new HashSet<>();
    long rows = 0;
    try (CloseableIterator<RowRecord> it =
        DeltaLog.forTable(new Configuration(), v1.getInference().getPredictions().getUri())
            .snapshot()
            .open()) {
      while (it.hasNext()) {
        RowRecord r = it.next();
        if (r.getString("run_id").equals(v1.getInference().getRunId())) {
          versions.add(r.getLong("source_table_version"));
          checkpoints.add(r.getString("checkpoint_id"));
          rows++;
        }
      }
    }
    assertEquals(10_000, rows);
    assertEquals(Set.of(1L), versions);
    assertEquals(Set.of(v1.getModel().getCheckpoint().getUuid()), checkpoints);
  }

  @Test
  void aWarmStartFromAModelWithoutAChampionIsRefusedNamingTheField() throws Exception {
    PipelineRequest request =
        StoryRequests.fewOfOneClass(DATA).toBuilder()
            .setName("nobody")
            .setTargetTable("nobody")
            .setWarmStart(
                PipelineWarmStart.newBuilder()
                    .setModel(
                        ModelSelector.newBuilder()
                            .setName("no-such-model")
                            .setStage(ModelStage.champion)))
            .build();
    ModelRegistryTable registry = new ModelRegistryTable(StorageRoot.of(stack.storage.toString()));
    ConfigValidationException refused =
        assertThrows(
            ConfigValidationException.class,
            () -> PipelineLauncher.checkWarmStart(request, registry, "story.yaml"));
    assertEquals(
        "warm_start.model: no model named 'no-such-model' in the registry " + registry.tableUri(),
        refused.problems().get(0).toString());

    // started anyway (as `temporal workflow start` could): it fails at once, before the ETL writes
    // anything
    WorkflowFailedException failed =
        assertThrows(WorkflowFailedException.class, () -> run("story-refused", request));
    Throwable cause = failed.getCause();
    assertTrue(
        cause instanceof ApplicationFailure a
            && a.getOriginalMessage()
                .startsWith("warm_start.model: model 'no-such-model' has no champion"),
        String.valueOf(cause));
    assertFalse(Files.exists(stack.storage.resolve("tables").resolve("nobody")), "no ETL ran");
  }

  private static PipelineResult run(String id, PipelineRequest request) {
    return stack
        .workers
        .client()
        .newWorkflowStub(
            PipelineWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.CONTROL)
                .setWorkflowId(id + "-" + UUID.randomUUID())
                .build())
        .run(request);
  }
}
