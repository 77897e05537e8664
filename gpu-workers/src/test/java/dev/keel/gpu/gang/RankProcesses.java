package dev.keel.gpu.gang;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.gpu.device.CudaDeviceInventory;
import dev.keel.gpu.device.DeviceInventory;
import dev.keel.gpu.device.SlotAssignment;
import dev.keel.gpu.model.Hyperparameters;
import dev.keel.gpu.model.KeelModel;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.ChildJvm;
import dev.keel.gpu.train.TrainableModel;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** Starts {@link GangRankMain} ranks as separate JVMs and reads what they wrote. */
final class RankProcesses {
  private RankProcesses() {}

  /** A {@link GangRankMain} rank in its own JVM. */
  record Rank(ChildJvm jvm) {
    Process process() {
      return jvm.process();
    }

    String output() {
      return jvm.output();
    }

    void awaitOutput(Predicate<String> condition, long seconds) throws InterruptedException {
      jvm.awaitOutput(condition, TimeUnit.SECONDS.toMillis(seconds));
    }

    /** Waits for the end and returns rank 0's final checkpoint URI (or "" for other ranks). */
    String finish() throws Exception {
      assertEquals(0, jvm.awaitExit(TimeUnit.SECONDS.toMillis(300)), "rank failed:\n" + output());
      return output()
          .lines()
          .filter(l -> l.startsWith("CHECKPOINT "))
          .map(l -> l.substring(11))
          .reduce((x, y) -> y)
          .orElse("");
    }
  }

  static {
    Engine.getEngine("PyTorch"); // DJL extracts its natives once, here, before several JVMs race to
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /**
   * Waits until every rank of a gang is ready (its JVM up, its data read), then lets them all join:
   * their rendezvous timeout counts from here, not from the start of their JVMs.
   */
  static void go(Rank... gang) throws Exception {
    for (Rank r : gang) {
      r.jvm().awaitReady();
    }
    for (Rank r : gang) {
      r.jvm().go("go");
    }
  }

  /** A rank's JVM; a rank of a gang (world > 1) waits for {@link #go}. */
  static Rank start(Path dir, String name, String... args) throws IOException {
    List<String> all = new ArrayList<>(List.of("root=" + dir));
    all.addAll(List.of(args));
    int rank =
        all.stream()
            .filter(a -> a.startsWith("rank="))
            .mapToInt(a -> Integer.parseInt(a.substring("rank=".length())))
            .findFirst()
            .orElse(0);
    Map<String, String> env = new HashMap<>(Map.of("OMP_NUM_THREADS", "1"));
    env.putAll(ownDevice(rank));
    return new Rank(
        ChildJvm.start(dir.resolve(name + ".log"), "512m", env, GangRankMain.class, all));
  }

  /** On a GPU host, rank i sees only slot i's GPU, as the ranks a worker's slots run. */
  private static Map<String, String> ownDevice(int rank) {
    return SlotAssignment.rankEnvironments(
            DeviceInventory.forEnvironment(System.getenv()).discover(),
            rank + 1,
            Optional.ofNullable(System.getenv(CudaDeviceInventory.VISIBLE_DEVICES)))
        .get(rank);
  }

  /** Every parameter of a TinyMlp checkpoint, flattened in block order. */
  static List<float[]> parameters(String checkpointUri) throws IOException {
    VerifiedCheckpoint checkpoint =
        VerifiedCheckpoint.open(CheckpointRef.newBuilder().setUri(checkpointUri).build());
    KeelModel keelModel = ModelZoo.withBuiltIns().resolve(checkpoint.metadata().model());
    Hyperparameters hp =
        Hyperparameters.resolve(keelModel, Map.of(), checkpoint.metadata().hyperparameters());
    try (TrainableModel model = TrainableModel.fromCheckpoint(keelModel, hp, 0, checkpoint)) {
      List<float[]> out = new ArrayList<>();
      for (Pair<String, Parameter> p : model.parameters()) {
        NDArray a = p.getValue().getArray();
        out.add(a.toFloatArray());
      }
      return out;
    }
  }

  static double maxAbsDifference(List<float[]> a, List<float[]> b) {
    double max = 0;
    for (int i = 0; i < a.size(); i++) {
      for (int k = 0; k < a.get(i).length; k++) {
        max = Math.max(max, Math.abs(a.get(i)[k] - b.get(i)[k]));
      }
    }
    return max;
  }
}
