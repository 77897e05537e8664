package dev.keel.benchmarks;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.keel.gpu.collective.GlooProcessGroup;
import dev.keel.gpu.collective.NativeCollectives;
import dev.keel.gpu.collective.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Allreduce bandwidth of Keel's collectives (c10d Gloo on DJL arrays) against plain c10d Gloo on a
 * tensor it allocates itself (no DJL, timed natively), side by side in the same rank processes on
 * 127.0.0.1, plus a single-process memcpy of the same bytes: the bound on one machine.
 *
 * <pre>
 * AllreduceBenchmark [--ranks 2,4] [--sizes-mib 1,4,16,64,256] [--rounds 3] [--host 127.0.0.1] [--no-buckets]
 * </pre>
 *
 * <p>Each rank is a child JVM (one rank per process, as in training); this JVM only hosts the
 * store. Per size, the two paths alternate allreduce by allreduce (which goes first alternates
 * too), so both see the same load on a shared machine; each allreduce is timed on its own, and the
 * table reports the medians and the median ratio of back-to-back pairs. Samples per size: {@code
 * rounds} times a count that shrinks with the size. Bus bandwidth is {@code 2(n-1)/n × bytes /
 * time}, what a ring allreduce moves per rank. A second table times one step of a ResNet-18-shaped
 * set of gradients (62 tensors) with one collective per tensor and with buckets of several sizes.
 * Run with {@code OMP_WAIT_POLICY=passive}.
 */
public final class AllreduceBenchmark {
  private static final String RESULT = "RESULT ";
  private static final Duration TIMEOUT = Duration.ofMinutes(5);
  private static final long MIB = 1L << 20;
  private static final long[] BUCKETS_MIB = {1, 4, 16, 64};

  private AllreduceBenchmark() {}

  public static void main(String[] args) throws Exception {
    int[] ranks = {2, 4};
    long[] sizesMib = {1, 4, 16, 64, 256};
    int rounds = 3;
    String host = "127.0.0.1";
    boolean buckets = true;
    int rank = -1;
    int size = 0;
    int port = 0;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--ranks" ->
            ranks = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
        case "--sizes-mib" ->
            sizesMib = Arrays.stream(args[++i].split(",")).mapToLong(Long::parseLong).toArray();
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--host" -> host = args[++i];
        case "--no-buckets" -> buckets = false;
        case "--rank" -> rank = Integer.parseInt(args[++i]);
        case "--size" -> size = Integer.parseInt(args[++i]);
        case "--port" -> port = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Engine.getEngine("PyTorch");
    NativeCollectives.load();
    if (rank >= 0) {
      runRank(rank, size, host, port, sizesMib, rounds, buckets);
      System.exit(0);
    }
    coordinate(ranks, sizesMib, rounds, host, buckets);
  }

  /**
   * Samples per round: small sizes are cheap but noisy (an op of a millisecond on a shared machine
   * jitters by tenths of one), large ones are steady but take a second.
   */
  private static int iterations(long bytes) {
    return (int) Math.max(3, Math.min(200, (256 * MIB) / bytes));
  }

  private static void coordinate(
      int[] ranks, long[] sizesMib, int rounds, String host, boolean buckets) throws Exception {
    System.out.println("machine: " + Machine.describe() + ", load " + Machine.loadAverages());
    System.out.println("memcpy (one process, native)...");
    double[] memcpy = new double[sizesMib.length];
    for (int s = 0; s < sizesMib.length; s++) {
      long bytes = sizesMib[s] * MIB;
      memcpy[s] = bytes / median(NativeCollectives.benchmarkMemcpy(bytes, 3 * iterations(bytes)));
    }
    List<String> table = new ArrayList<>();
    List<String> bucketTable = new ArrayList<>();
    for (int n : ranks) {
      System.out.println(n + " ranks...");
      List<String> results = runRanks(n, sizesMib, rounds, host, buckets);
      for (String r : results) {
        String[] f = r.split(" ");
        if (f[0].equals("size")) {
          long bytes = Long.parseLong(f[1]);
          double keel = Double.parseDouble(f[2]);
          double plain = Double.parseDouble(f[3]);
          double bus = 2.0 * (n - 1) / n * bytes;
          int s = indexOf(sizesMib, bytes / MIB);
          table.add(
              String.format(
                  Locale.ROOT,
                  "| %d | %d MiB | %.3f | %.3f | %.2f | **%.3f** | %.3f | %.2f | %s |",
                  n,
                  bytes / MIB,
                  bus / keel,
                  bus / plain,
                  memcpy[s],
                  plain / keel,
                  Double.parseDouble(f[4]),
                  keel / 1e6,
                  f[5]));
        } else {
          bucketTable.add(
              String.format(
                  Locale.ROOT,
                  "| %d | %s | %.1f | %.3f |",
                  n,
                  f[1].replace('-', ' '),
                  Double.parseDouble(f[2]) / 1e6,
                  2.0 * (n - 1) / n * Long.parseLong(f[3]) / Double.parseDouble(f[2])));
        }
      }
    }
    System.out.println();
    System.out.println("load after: " + Machine.loadAverages());
    System.out.println(
        "bus bandwidth, GB/s (medians); Keel / plain = ratio of the median bandwidths; paired = median of"
            + " plain time / Keel time over back-to-back pairs");
    System.out.println(
        "| ranks | size | Keel (DJL arrays) | plain c10d Gloo | memcpy, 1 process | Keel / plain | paired"
            + " | Keel ms | samples |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    table.forEach(System.out::println);
    if (!bucketTable.isEmpty()) {
      System.out.println();
      System.out.println(
          "one step of ResNet-18-shaped gradients (62 float tensors, "
              + String.format(Locale.ROOT, "%.1f", resnet18Bytes() / (double) MIB)
              + " MiB), median ms");
      System.out.println("| ranks | variant | ms per step | bus GB/s |");
      System.out.println("|---|---|---|---|");
      bucketTable.forEach(System.out::println);
    }
  }

  private static List<String> runRanks(
      int n, long[] sizesMib, int rounds, String host, boolean buckets) throws Exception {
    Path logs = Files.createTempDirectory("keel-allreduce-bench");
    List<Process> processes = new ArrayList<>();
    try (Store store = Store.server(host, 0, n, TIMEOUT)) {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      String sizes =
          Arrays.stream(sizesMib).mapToObj(Long::toString).collect(Collectors.joining(","));
      for (int r = 0; r < n; r++) {
        List<String> cmd =
            new ArrayList<>(
                List.of(
                    java,
                    "-Xmx512m",
                    "-cp",
                    WorkerProcesses.classpath(),
                    AllreduceBenchmark.class.getName(),
                    "--rank",
                    Integer.toString(r),
                    "--size",
                    Integer.toString(n),
                    "--port",
                    Integer.toString(store.port()),
                    "--host",
                    host,
                    "--sizes-mib",
                    sizes,
                    "--rounds",
                    Integer.toString(rounds)));
        if (!buckets) {
          cmd.add("--no-buckets");
        }
        ProcessBuilder pb =
            new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(logs.resolve("rank-" + r + ".log").toFile());
        pb.environment().put("OMP_WAIT_POLICY", "passive");
        pb.environment().put("OMP_NUM_THREADS", "1");
        processes.add(pb.start());
      }
      for (int r = 0; r < n; r++) {
        Process p = processes.get(r);
        if (!p.waitFor(60, TimeUnit.MINUTES) || p.exitValue() != 0) {
          throw new IllegalStateException(
              "rank " + r + " failed: " + Files.readString(logs.resolve("rank-" + r + ".log")));
        }
      }
      return Files.readAllLines(logs.resolve("rank-0.log")).stream()
          .filter(l -> l.startsWith(RESULT))
          .map(l -> l.substring(RESULT.length()))
          .toList();
    } finally {
      processes.forEach(Process::destroyForcibly);
    }
  }

  private static void runRank(
      int rank, int n, String host, int port, long[] sizesMib, int rounds, boolean buckets) {
    try (Store store = Store.client(host, port, n, TIMEOUT);
        GlooProcessGroup pg = GlooProcessGroup.create(store, rank, n, host, TIMEOUT);
        NDManager manager = NDManager.newBaseManager()) {
      for (long mib : sizesMib) {
        long bytes = mib * MIB;
        int k = iterations(bytes);
        try (NDManager m = manager.newSubManager()) {
          NDArray a = m.zeros(new Shape(bytes / 4));
          List<NDArray> list = List.of(a);
          pg.allreduceSum(list);
          pg.benchmarkPlainAllreduce(bytes, 1);
          List<Long> keel = new ArrayList<>();
          List<Long> plain = new ArrayList<>();
          List<Double> pairs = new ArrayList<>();
          pg.barrier();
          for (int i = 0; i < rounds * k; i++) {
            long plainFirst = i % 2 == 1 ? pg.benchmarkPlainAllreduce(bytes, 1)[0] : -1;
            long t0 = System.nanoTime();
            pg.allreduceSum(list);
            long keelNs = System.nanoTime() - t0;
            long plainNs = plainFirst >= 0 ? plainFirst : pg.benchmarkPlainAllreduce(bytes, 1)[0];
            keel.add(keelNs);
            plain.add(plainNs);
            pairs.add((double) plainNs / keelNs);
          }
          if (rank == 0) {
            System.out.printf(
                Locale.ROOT,
                "%ssize %d %.0f %.0f %.4f %d%n",
                RESULT,
                bytes,
                median(keel),
                median(plain),
                Machine.median(pairs),
                keel.size());
            System.out.flush();
          }
        }
      }
      if (buckets) {
        stepOfResNet18(pg, manager, rank);
      }
    }
  }

  /** One training step's gradients, reduced per tensor and in buckets of several sizes. */
  private static void stepOfResNet18(GlooProcessGroup pg, NDManager manager, int rank) {
    try (NDManager m = manager.newSubManager()) {
      List<NDArray> grads = resnet18Shapes().stream().map(m::zeros).toList();
      long bytes = resnet18Bytes();
      List<String> names = new ArrayList<>(List.of("one-collective-per-tensor"));
      for (long b : BUCKETS_MIB) {
        names.add("buckets-of-" + b + "-MiB");
      }
      List<List<Long>> times = new ArrayList<>();
      names.forEach(x -> times.add(new ArrayList<>()));
      for (int round = 0; round < 8; round++) {
        for (int v = 0; v < names.size(); v++) {
          pg.barrier();
          long t0 = System.nanoTime();
          if (v == 0) {
            pg.allreduceSum(grads);
          } else {
            pg.allreduceSumBucketed(grads, BUCKETS_MIB[v - 1] * MIB);
          }
          if (round > 0) {
            times.get(v).add(System.nanoTime() - t0);
          }
        }
      }
      if (rank == 0) {
        for (int v = 0; v < names.size(); v++) {
          System.out.printf(
              Locale.ROOT,
              "%sbuckets %s %.0f %d%n",
              RESULT,
              names.get(v),
              median(times.get(v)),
              bytes);
        }
      }
    }
  }

  /** The parameter shapes of torchvision's ResNet-18 (11.7 M parameters), in registration order. */
  static List<Shape> resnet18Shapes() {
    List<Shape> shapes = new ArrayList<>();
    shapes.add(new Shape(64, 3, 7, 7));
    bn(shapes, 64);
    int in = 64;
    for (int out : new int[] {64, 128, 256, 512}) {
      for (int block = 0; block < 2; block++) {
        int blockIn = block == 0 ? in : out;
        shapes.add(new Shape(out, blockIn, 3, 3));
        bn(shapes, out);
        shapes.add(new Shape(out, out, 3, 3));
        bn(shapes, out);
        if (block == 0 && blockIn != out) {
          shapes.add(new Shape(out, blockIn, 1, 1));
          bn(shapes, out);
        }
      }
      in = out;
    }
    shapes.add(new Shape(1000, 512));
    shapes.add(new Shape(1000));
    return shapes;
  }

  private static void bn(List<Shape> shapes, int channels) {
    shapes.add(new Shape(channels));
    shapes.add(new Shape(channels));
  }

  static long resnet18Bytes() {
    return resnet18Shapes().stream().mapToLong(Shape::size).sum() * 4;
  }

  private static int indexOf(long[] values, long v) {
    for (int i = 0; i < values.length; i++) {
      if (values[i] == v) {
        return i;
      }
    }
    throw new IllegalArgumentException(Long.toString(v));
  }

  private static double median(long[] nanos) {
    return Machine.median(Arrays.stream(nanos).mapToObj(x -> (double) x).toList());
  }

  private static double median(List<Long> nanos) {
    return Machine.median(nanos.stream().map(Long::doubleValue).toList());
  }
}
