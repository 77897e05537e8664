package dev.keel.tables.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Value;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PromoteModelRequest;
import dev.keel.api.v1.RegisterModelRequest;
import dev.keel.api.v1.StageChange;
import dev.keel.api.v1.TableRef;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.CorruptCheckpointException;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.storage.testing.FakeCheckpoints;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.testing.KernelRows;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ModelRegistryRegistersOnceAndKeepsOneChampionTest {
  private Path root;
  private ModelRegistryTable registry;
  private CheckpointStorage checkpoints;

  @BeforeEach
  void setUp() throws Exception {
    root = TestDirs.create("registry");
    registry = new ModelRegistryTable(StorageRoot.of(root.toString()));
    checkpoints = CheckpointStorage.forRoot(root.resolve("checkpoints").toString());
  }

  @Test
  void aRetriedRegistrationReturnsTheFirstVersionAndWritesNothing() throws Exception {
    CheckpointRef ckpt = FakeCheckpoints.write(checkpoints, "pipeline-a", "trial-1", "c-1", 4096);
    ModelVersion first = registry.register(request("fashion", ckpt, "pipeline-a"));
    ModelVersion again = registry.register(request("fashion", ckpt, "pipeline-a"));

    assertEquals(1, first.getVersion());
    assertEquals(first, again);
    assertEquals(1, KernelRows.read(registry.tableUri()).size());
    assertEquals(ModelStage.candidate, first.getStage());
    assertEquals(Value.newBuilder().setNumberValue(0.002).build(), first.getHparamsMap().get("lr"));
    assertEquals(0.91, first.getMetricsMap().get("test_accuracy"));
    assertEquals(
        0.5,
        first.getMetricsMap().get("searcher_metric"),
        "the checkpoint's own metrics come along");
    assertEquals(
        TableRef.newBuilder().setUri("file:///data/fashion_mnist").setVersion(3).build(),
        first.getData());
    assertTrue(first.getCodeVersion().matches("[0-9a-f]{40}(-dirty)?"), first.getCodeVersion());
    assertEquals(ckpt.getUri(), first.getSourceCheckpointUri());
  }

  @Test
  void theRegistryKeepsItsOwnCopySoDeletingTheSourceCheckpointLosesNothing() throws Exception {
    CheckpointRef ckpt = FakeCheckpoints.write(checkpoints, "exp-1", "trial-4", "c-4", 4096);
    ModelVersion v = registry.register(request("fashion", ckpt, "pipeline-b"));

    Path copy = Path.of(URI.create(v.getCheckpoint().getUri()));
    assertEquals(root.resolve("models/fashion/1/c-4").toRealPath(), copy.toRealPath());
    assertEquals(ckpt.getUuid(), v.getCheckpoint().getUuid());
    checkpoints.delete(ckpt.getUri());
    assertEquals("c-4", VerifiedCheckpoint.open(v.getCheckpoint()).metadata().uuid());
  }

  @Test
  void versionsCountUpPerNameAndANewChampionArchivesTheOldOne() throws Exception {
    ModelVersion v1 =
        registry.register(
            request("fashion", FakeCheckpoints.write(checkpoints, "e", "t", "u1", 1024), "p1"));
    ModelVersion v2 =
        registry.register(
            request("fashion", FakeCheckpoints.write(checkpoints, "e", "t", "u2", 1024), "p2"));
    ModelVersion other =
        registry.register(
            request("churn", FakeCheckpoints.write(checkpoints, "e", "t", "u3", 1024), "p3"));
    assertEquals(
        List.of(1L, 2L, 1L), List.of(v1.getVersion(), v2.getVersion(), other.getVersion()));

    registry.promote(promote("fashion", 1, ModelStage.champion, "first model"));
    ModelVersion champion =
        registry.promote(
            promote("fashion", 2, ModelStage.champion, "beats v1 on test v3: 0.91 > 0.88")
                .toBuilder()
                .setWho("alice")
                .build());
    assertEquals(ModelStage.champion, champion.getStage());
    ModelVersion old = registry.describe("fashion", 1);
    assertEquals(ModelStage.archived, old.getStage());
    assertEquals(
        List.of(ModelStage.candidate, ModelStage.champion, ModelStage.archived),
        old.getHistoryList().stream().map(StageChange::getStage).toList());
    assertEquals("replaced by v2", old.getHistory(2).getReason());
    assertEquals("beats v1 on test v3: 0.91 > 0.88", champion.getHistory(1).getReason());
    assertEquals(
        "alice", champion.getHistory(1).getWho(), "who asked is kept with the stage change");
    assertEquals("alice", old.getHistory(2).getWho(), "and with the archiving it caused");
    assertEquals("", old.getHistory(1).getWho(), "a change nobody named has no one");
    assertEquals(2, registry.champion("fashion").orElseThrow().getVersion());
    assertTrue(registry.champion("churn").isEmpty());

    int rows = KernelRows.read(registry.tableUri()).size();
    registry.promote(promote("fashion", 2, ModelStage.champion, "again"));
    assertEquals(
        rows,
        KernelRows.read(registry.tableUri()).size(),
        "the stage it already has writes nothing");
  }

  @Test
  void aComparisonIsRecordedWithItsDecisionAndAWinningChallengerBecomesChampionOnce()
      throws Exception {
    registry.register(
        request("fashion", FakeCheckpoints.write(checkpoints, "e", "t", "u1", 1024), "p1"));
    registry.register(
        request("fashion", FakeCheckpoints.write(checkpoints, "e", "t", "u2", 1024), "p2"));
    registry.register(
        request("fashion", FakeCheckpoints.write(checkpoints, "e", "t", "u3", 1024), "p3"));
    registry.recordComparison(
        comparison(1, 0, 0.88, Double.NaN, Comparison.Decision.promoted, "p1"));
    Comparison lost = comparison(2, 1, 0.87, 0.88, Comparison.Decision.kept_champion, "p2");
    ModelVersion v2 = registry.recordComparison(lost);
    Comparison won = comparison(3, 1, 0.91, 0.88, Comparison.Decision.promoted, "p3");
    ModelVersion v3 = registry.recordComparison(won);
    int rows = KernelRows.read(registry.tableUri()).size();
    assertEquals(v3, registry.recordComparison(won), "a retried decision writes nothing");
    assertEquals(rows, KernelRows.read(registry.tableUri()).size());

    assertEquals(ModelStage.candidate, v2.getStage());
    assertEquals(List.of(lost), v2.getComparisonsList());
    assertEquals(ModelStage.champion, v3.getStage());
    assertEquals(List.of(won), v3.getComparisonsList());
    assertEquals(
        "accuracy 0.9100 vs champion v1 0.8800 on fashion_mnist v4 test: promoted",
        v3.getHistory(1).getReason());
    assertEquals(ModelStage.archived, registry.describe("fashion", 1).getStage());
    assertEquals(
        "accuracy 0.8800 (no champion yet) on fashion_mnist v4 test: promoted",
        registry.describe("fashion", 1).getHistory(1).getReason());
    assertEquals(3, registry.champion("fashion").orElseThrow().getVersion());
  }

  static Comparison comparison(
      long challenger,
      long champion,
      double value,
      double championValue,
      Comparison.Decision decision,
      String by) {
    Comparison.Builder c =
        Comparison.newBuilder()
            .setChallenger(ModelVersionRef.newBuilder().setName("fashion").setVersion(challenger))
            .setMetric("accuracy")
            .setChallengerValue(value)
            .setData(
                TableRef.newBuilder().setUri("file:///data/tables/fashion_mnist").setVersion(4))
            .setSplit("test")
            .setDecision(decision)
            .setTimeMillis(1_790_000_000_000L + challenger)
            .setDecidedBy(by);
    if (champion > 0) {
      c.setChampion(ModelVersionRef.newBuilder().setName("fashion").setVersion(champion))
          .setChampionValue(championValue);
    }
    return c.build();
  }

  @Test
  void unknownNamesVersionsAndStagesAreRefusedByName() throws Exception {
    registry.register(
        request("fashion", FakeCheckpoints.write(checkpoints, "e", "t", "u1", 1024), "p1"));

    assertEquals(
        "no model named 'fashon' in the registry (models: fashion)",
        assertThrows(UnknownModelException.class, () -> registry.describe("fashon", 1))
            .getMessage());
    assertEquals(
        "model 'fashion' has no version 7 (versions 1..1)",
        assertThrows(UnknownModelException.class, () -> registry.describe("fashion", 7))
            .getMessage());
    assertEquals(
        "stage 9 is not one of candidate|champion|archived",
        assertThrows(
                UnknownModelException.class,
                () ->
                    registry.promote(
                        promote("fashion", 1, ModelStage.champion, "").toBuilder()
                            .setStageValue(9)
                            .build()))
            .getMessage());
    assertTrue(
        assertThrows(
                UnknownModelException.class,
                () ->
                    registry.register(
                        request(
                            "../etc",
                            FakeCheckpoints.write(checkpoints, "e", "t", "u9", 64),
                            "p9")))
            .getMessage()
            .startsWith("model name '../etc' must match"));
  }

  @Test
  void aCorruptCheckpointIsRefusedAndNothingIsWritten() throws Exception {
    CheckpointRef ckpt = FakeCheckpoints.write(checkpoints, "e", "t", "bad", 4096);
    Path dir = Path.of(URI.create(ckpt.getUri()));
    Files.write(
        dir.resolve(CheckpointFiles.REQUIRED.get(CheckpointFiles.REQUIRED.size() - 1)),
        new byte[] {1, 2, 3});

    CorruptCheckpointException e =
        assertThrows(
            CorruptCheckpointException.class,
            () -> registry.register(request("fashion", ckpt, "p1")));
    assertTrue(e.getMessage().contains(ckpt.getUri()), e.getMessage());
    assertTrue(registry.list().isEmpty());
    assertTrue(Files.notExists(root.resolve("models")));
  }

  static RegisterModelRequest request(String name, CheckpointRef ckpt, String by) {
    return RegisterModelRequest.newBuilder()
        .setName(name)
        .setCheckpoint(ckpt)
        .setRegisteredBy(by)
        .putHparams("lr", Value.newBuilder().setNumberValue(0.002).build())
        .putMetrics("test_accuracy", 0.91)
        .setData(TableRef.newBuilder().setUri("file:///data/fashion_mnist").setVersion(3))
        .setExperimentId(ckpt.getExperimentId())
        .setTrialId(ckpt.getTrialId())
        .build();
  }

  static PromoteModelRequest promote(String name, long version, ModelStage stage, String reason) {
    return PromoteModelRequest.newBuilder()
        .setModel(ModelVersionRef.newBuilder().setName(name).setVersion(version))
        .setStage(stage)
        .setReason(reason)
        .build();
  }
}
