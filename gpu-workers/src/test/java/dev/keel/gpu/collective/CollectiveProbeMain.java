package dev.keel.gpu.collective;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.keel.gpu.testing.ChildJvm;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;

/**
 * One rank of {@link CollectivesAcrossProcessesTest}, in its own JVM: {@code CollectiveProbeMain
 * <scenario> <rank> <size> <timeoutMillis> [root]}. It loads libtorch and the c10d library, prints
 * {@code READY} and waits for its go line ({@link ChildJvm#readyThenAwaitGo}): then rank 0 runs the
 * store server on a free port, printed as {@code PORT n}, and the others connect to the port their
 * go line names.
 *
 * <p>Prints {@code OK} and exits 0 on success; on a {@link CollectiveException} prints {@code
 * COLLECTIVE_EXCEPTION after=<ms the failing call took> message=<message>} and exits 3.
 */
public final class CollectiveProbeMain {
  static final String HOST = "127.0.0.1";
  static final int COLLECTIVE_FAILED = 3;

  private static long callStarted;

  private CollectiveProbeMain() {}

  public static void main(String[] args) throws Exception {
    String scenario = args[0];
    int rank = Integer.parseInt(args[1]);
    int size = Integer.parseInt(args[2]);
    Duration timeout = Duration.ofMillis(Long.parseLong(args[3]));
    Engine.getEngine("PyTorch");
    NativeCollectives.load();
    // the timeout counts from here: every rank is up
    int port = Integer.parseInt(ChildJvm.readyThenAwaitGo().trim());
    try (NDManager manager = NDManager.newBaseManager()) {
      callStarted = System.nanoTime();
      try (Store store =
          rank == 0
              ? Store.server(HOST, port, size, timeout)
              : Store.client(HOST, port, size, timeout)) {
        if (rank == 0) {
          System.out.println("PORT " + store.port());
        }
        callStarted = System.nanoTime();
        try (GlooProcessGroup pg = GlooProcessGroup.create(store, rank, size, HOST, timeout)) {
          System.out.println("JOINED");
          switch (scenario) {
            case "join" -> pg.barrier();
            case "allreduce" -> allreduce(pg, manager);
            case "broadcast" -> broadcast(pg, manager, Integer.parseInt(args[4]));
            case "loop" -> loop(pg, manager);
            default -> throw new IllegalArgumentException(scenario);
          }
        }
      }
      System.out.println("OK");
    } catch (CollectiveException e) {
      long ms = (System.nanoTime() - callStarted) / 1_000_000;
      System.out.println("COLLECTIVE_EXCEPTION after=" + ms + " message=" + e.getMessage());
      System.out.flush();
      System.exit(COLLECTIVE_FAILED);
    }
    System.out.flush();
    System.exit(0);
  }

  private record Spec(Shape shape, DataType type) {}

  private static final List<Spec> SPECS =
      List.of(
          new Spec(new Shape(1), DataType.FLOAT32),
          new Spec(new Shape(7), DataType.FLOAT32),
          new Spec(new Shape(3, 5), DataType.FLOAT32),
          new Spec(new Shape(10), DataType.FLOAT64),
          new Spec(new Shape(64, 32, 3, 3), DataType.FLOAT32),
          new Spec(new Shape(5), DataType.INT32),
          new Spec(new Shape(33, 3), DataType.INT64),
          new Spec(new Shape(1000, 1000), DataType.FLOAT32),
          new Spec(new Shape(2, 2), DataType.FLOAT32),
          new Spec(new Shape(300), DataType.FLOAT32));

  /** Integer values, so every sum is exact in every type: {@code arange * (rank + 1) + i}. */
  private static NDArray value(NDManager m, Spec s, double factor, double offset) {
    return m.arange(0, (int) s.shape().size(), 1, DataType.FLOAT64)
        .reshape(s.shape())
        .mul(factor)
        .add(offset)
        .toType(s.type(), false);
  }

  private static void allreduce(GlooProcessGroup pg, NDManager manager) {
    int n = pg.size();
    check("one op per tensor", pg, manager, pg::allreduceSum);
    check("bucketed", pg, manager, pg::allreduceSumBucketed);
    // 4 KiB buckets: several buckets, dtype changes and tensors larger than a bucket in one call
    check("4 KiB buckets", pg, manager, t -> pg.allreduceSumBucketed(t, 4096));
    pg.allreduceSum(List.of());
    System.out.println("allreduce checked for " + n + " ranks");
  }

  private static void check(
      String variant, GlooProcessGroup pg, NDManager parent, Consumer<List<NDArray>> op) {
    int n = pg.size();
    try (NDManager m = parent.newSubManager()) {
      List<NDArray> arrays = new ArrayList<>();
      for (int i = 0; i < SPECS.size(); i++) {
        arrays.add(value(m, SPECS.get(i), pg.rank() + 1, i));
      }
      callStarted = System.nanoTime();
      op.accept(arrays);
      for (int i = 0; i < SPECS.size(); i++) {
        NDArray expected = value(m, SPECS.get(i), n * (n + 1) / 2.0, (double) n * i);
        if (!arrays.get(i).contentEquals(expected)) {
          throw new AssertionError(
              variant
                  + ": tensor "
                  + i
                  + " "
                  + SPECS.get(i)
                  + " differs from the sum: "
                  + arrays.get(i).flatten().get("0:5")
                  + " vs "
                  + expected.flatten().get("0:5"));
        }
      }
    }
    System.out.println("allreduce " + variant + ": sums exact");
  }

  private static void broadcast(GlooProcessGroup pg, NDManager manager, int root) throws Exception {
    Engine.getInstance().setRandomSeed(100 + pg.rank());
    List<NDArray> arrays = new ArrayList<>();
    for (Spec s : SPECS) {
      arrays.add(manager.randomUniform(-100f, 100f, s.shape()).toType(s.type(), false));
    }
    System.out.println("BEFORE " + digest(arrays));
    callStarted = System.nanoTime();
    pg.broadcast(arrays, root);
    System.out.println("AFTER " + digest(arrays));
  }

  /**
   * 16 tensors per call: behind a dead or hung peer, all but the first must not each wait a
   * timeout.
   */
  private static void loop(GlooProcessGroup pg, NDManager manager) {
    List<NDArray> arrays = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      arrays.add(manager.zeros(new Shape(16 * 1024)));
    }
    for (long i = 1; ; i++) {
      callStarted = System.nanoTime();
      pg.allreduceSum(arrays);
      if (i % 100 == 0) {
        System.out.println("ITER " + i);
        System.out.flush();
      }
    }
  }

  private static String digest(List<NDArray> arrays) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    for (NDArray a : arrays) {
      md.update(a.toByteArray());
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
