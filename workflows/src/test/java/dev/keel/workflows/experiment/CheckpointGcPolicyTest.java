package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.checkpoint.CheckpointMetrics;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.CheckpointStorage;
import dev.keel.api.v1.TrialState;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Determined's keep-union over validated checkpoints and the periodic ones taken between
 * validations.
 */
class CheckpointGcPolicyTest {

  private static CheckpointRef validated(String uuid, long batches, double metric) {
    return CheckpointRef.newBuilder()
        .setUuid(uuid)
        .setBatches(batches)
        .putMetrics(CheckpointMetrics.SEARCHER_METRIC, metric)
        .putMetrics(CheckpointMetrics.LENGTH, (double) batches)
        .build();
  }

  private static CheckpointRef periodic(String uuid, long batches) {
    return CheckpointRef.newBuilder().setUuid(uuid).setBatches(batches).build();
  }

  /** Validated at 30 and 60 (best at 30), periodic every 10 in between. */
  private static TrialState trial(String p) {
    return TrialState.newBuilder()
        .addCheckpoints(validated(p + "30", 30, 0.9))
        .addCheckpoints(validated(p + "60", 60, 0.8))
        .addPeriodicCheckpoints(periodic(p + "10", 10))
        .addPeriodicCheckpoints(periodic(p + "20", 20))
        .addPeriodicCheckpoints(periodic(p + "40", 40))
        .addPeriodicCheckpoints(periodic(p + "50", 50))
        .build();
  }

  private static List<String> deleted(CheckpointStorage storage, TrialState... trials) {
    return new CheckpointGcPolicy(ConfigDefaults.withDefaults(storage), false)
        .delete(List.of(trials)).stream().map(CheckpointRef::getUuid).toList();
  }

  @Test
  void periodicCheckpointsGoOnceALaterCheckpointExistsAndAreNeverBest() {
    assertEquals(
        List.of("a10", "a20", "a40", "a50"),
        deleted(CheckpointStorage.getDefaultInstance(), trial("a")));
    // experiment best 3: only validated checkpoints rank (a30 and b30 at 0.9, then a60 by uuid)
    CheckpointStorage keepThreeBest =
        CheckpointStorage.newBuilder()
            .setSaveExperimentBest(3)
            .setSaveTrialBest(0)
            .setSaveTrialLatest(0)
            .build();
    assertEquals(
        List.of("a10", "a20", "a40", "a50", "b10", "b20", "b40", "b50", "b60"),
        deleted(keepThreeBest, trial("a"), trial("b")));
  }

  @Test
  void latestCountsPeriodicCheckpointsByTrainingProgress() {
    CheckpointStorage latestTwo =
        CheckpointStorage.newBuilder().setSaveTrialBest(0).setSaveTrialLatest(2).build();
    Set<String> keep =
        new CheckpointGcPolicy(ConfigDefaults.withDefaults(latestTwo), false, false)
            .keep(List.of(trial("a")));
    assertEquals(
        Set.of("a50", "a60"), keep, "as runs that reached GC before the one best rule did");
    assertEquals(
        Set.of("a30", "a50", "a60"),
        new CheckpointGcPolicy(ConfigDefaults.withDefaults(latestTwo), false)
            .keep(List.of(trial("a"))),
        "the experiment's best (a30) stays whatever the counts say: the result names it");
    assertEquals(List.of("a10", "a20", "a40"), deleted(latestTwo, trial("a")));
  }

  @Test
  void tiedMetricsKeepTheLongerTrainedCheckpointTheResultNames() {
    TrialState one =
        TrialState.newBuilder()
            .setTrialId(1)
            .addCheckpoints(validated("one100", 100, 1.0).toBuilder().setTrialId("trial-1"))
            .addCheckpoints(validated("one300", 300, 1.0).toBuilder().setTrialId("trial-1"))
            .build();
    TrialState two =
        TrialState.newBuilder()
            .setTrialId(2)
            .addCheckpoints(validated("two100", 100, 1.0).toBuilder().setTrialId("trial-2"))
            .addCheckpoints(validated("two300", 300, 1.0).toBuilder().setTrialId("trial-2"))
            .build();
    assertEquals(
        List.of("one100", "two100"), deleted(CheckpointStorage.getDefaultInstance(), one, two));
    TrialBook book = new TrialBook(false);
    book.restore(List.of(one, two));
    assertEquals(
        "one300",
        book.bestCheckpoint().orElseThrow().getUuid(),
        "longer trained, then the lower trial");
    assertEquals(1, book.bestTrialId());
  }

  @Test
  void aCheckpointListedTwiceIsDeletedOnce() {
    TrialState t =
        trial("a").toBuilder()
            .addCheckpoints(validated("a60", 60, 0.8))
            .build(); // resumed at its target
    List<String> d = deleted(CheckpointStorage.getDefaultInstance(), t);
    assertEquals(d.size(), d.stream().collect(Collectors.toSet()).size(), d.toString());
  }
}
