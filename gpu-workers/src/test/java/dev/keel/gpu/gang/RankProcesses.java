package dev.keel.gpu.gang;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.nn.Parameter;
import ai.djl.util.Pair;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.gpu.model.ModelRegistry;
import dev.keel.gpu.train.TrainableModel;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starts {@link GangRankMain} ranks as separate JVMs and reads what they wrote. */
final class RankProcesses {
  private RankProcesses() {}

  /** A rank's process and its output file. */
  record Rank(Process process, Path log) {
    String output() throws IOException {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    /** Waits for the end and returns rank 0's final checkpoint URI (or "" for other ranks). */
    String finish() throws Exception {
      assertTrue(process.waitFor(300, TimeUnit.SECONDS), "rank timed out:\n" + output());
      String out = output();
      assertTrue(process.exitValue() == 0, "rank failed:\n" + out);
      return out.lines().filter(l -> l.startsWith("CHECKPOINT ")).map(l -> l.substring(11)).reduce((x, y) -> y).orElse("");
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

  static Rank start(Path dir, String name, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("-Xmx512m");
    cmd.add(GangRankMain.class.getName());
    cmd.add("root=" + dir);
    cmd.addAll(List.of(args));
    Path log = dir.resolve(name + ".log");
    Files.createDirectories(dir);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("OMP_NUM_THREADS", "1");
    return new Rank(pb.start(), log);
  }

  /** Every parameter of a TinyMlp checkpoint, flattened in block order. */
  static List<float[]> parameters(String checkpointUri) throws IOException {
    TrainingPlan plan = TrainingPlan.from(GangRankMain.request(Path.of("/tmp"), "read", "sgd", 64, 1)
        .setCheckpointRoot(Path.of(System.getProperty("java.io.tmpdir")).toUri().toString()).build(),
        ModelRegistry.withBuiltIns());
    try (TrainableModel model = TrainableModel.initialize(plan.model(), plan.hyperparameters(), 0)) {
      model.restore(VerifiedCheckpoint.open(CheckpointRef.newBuilder().setUri(checkpointUri).build()), false);
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
