package dev.keel.tables.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ModelVersion;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.testing.FakeCheckpoints;
import dev.keel.storage.testing.TestDirs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Registrations race on one name, each through its own registry object as separate workers would.
 */
class ConcurrentRegistrationsOfOneNameGetDistinctVersionsTest {

  @Test
  void fourRacingRegistrationsGetVersionsOneToFourAndTheTableHoldsAllFour() throws Exception {
    Path root = TestDirs.create("registry-race");
    CheckpointStorage checkpoints =
        CheckpointStorage.forRoot(root.resolve("checkpoints").toString());
    int writers = 4;
    List<CheckpointRef> ckpts = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      ckpts.add(FakeCheckpoints.write(checkpoints, "e", "t", "u" + i, 2048));
    }
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<ModelVersion>> results = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        CheckpointRef c = ckpts.get(i);
        String by = "pipeline-" + i;
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return new ModelRegistryTable(StorageRoot.of(root.toString()))
                      .register(
                          ModelRegistryRegistersOnceAndKeepsOneChampionTest.request(
                              "fashion", c, by));
                }));
      }
      go.countDown();
      Set<Long> versions = new TreeSet<>();
      for (Future<ModelVersion> f : results) {
        versions.add(f.get().getVersion());
      }
      assertEquals(Set.of(1L, 2L, 3L, 4L), versions);
      List<ModelVersion> listed =
          new ModelRegistryTable(StorageRoot.of(root.toString())).list("fashion");
      assertEquals(writers, listed.size());
      assertEquals(
          writers, listed.stream().map(v -> v.getCheckpoint().getUuid()).distinct().count());
    } finally {
      pool.shutdownNow();
    }
  }
}
