package dev.keel.benchmarks;

import dev.keel.storage.S3Uri;
import dev.keel.storage.StorageProbe;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.StoreGuarantees;
import dev.keel.storage.testing.S3ProxyExtension;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.S3ConditionalPutLogStore;
import dev.keel.tables.TableSchemas;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * What the object store costs Keel's table commits, on one S3 server per run ({@code --server
 * s3proxy|minio|moto}: the test fixture starts it, see {@code
 * dev.keel.storage.testing.ExternalS3Server}):
 *
 * <ul>
 *   <li>the start-up storage probe ({@code keel dev/demo/worker}: list the root, then write,
 *       re-write conditionally and delete one object), and the same for a local directory, each
 *       timed {@code --reps} times;
 *   <li>N writer processes (separate JVMs, as separate machines would be) appending M commits each
 *       to one table at once: commits kept (the table's last version must be N x M, the first
 *       commit creating it aside), conflicts the writers lost and retried (a 412 on {@code
 *       N.json}), and the p50/p99 latency of a commit as its writer saw it (a writer's first
 *       commit, which also starts its engine, is reported apart).
 * </ul>
 *
 * <pre>
 * StorageBenchmark --server minio [--writers 2,4] [--commits 25] [--reps 5]
 * </pre>
 */
public final class StorageBenchmark {
  private StorageBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--writer")) {
      writer(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
      return;
    }
    String server = "s3proxy";
    List<Integer> writers = List.of(2, 4);
    int commits = 25;
    int reps = 5;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--server" -> server = args[++i];
        case "--writers" ->
            writers = Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
        case "--commits" -> commits = Integer.parseInt(args[++i]);
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown option "
                    + args[i]
                    + " (--server s3proxy|minio|moto --writers 2,4 --commits 25 --reps 5)");
      }
    }
    System.setProperty(S3ProxyExtension.SERVER_PROPERTY, server);
    System.setProperty(
        "keel.home", Path.of(System.getProperty("keel.home", ".")).toAbsolutePath().toString());
    System.out.println("machine: " + Machine.describe());
    System.out.println("load averages before (1/5/15 min): " + Machine.loadAverages());
    S3ProxyExtension.start();
    System.out.println("server: " + server + " at " + S3ProxyExtension.endpoint());

    probeCosts(server, reps);
    for (int n : writers) {
      concurrentWriters(server, n, commits);
    }
    System.out.println("load averages after: " + Machine.loadAverages());
  }

  private static void probeCosts(String server, int reps) throws Exception {
    List<Double> s3 = new ArrayList<>();
    List<Double> local = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      StorageRoot root = StorageRoot.of("s3://" + S3ProxyExtension.newBucket("probe") + "/keel");
      long t0 = System.nanoTime();
      // what problemForWriting does at start-up, without its per-process cache of the answer
      if (StorageProbe.problem(root).isPresent()) {
        throw new IllegalStateException(StorageProbe.problem(root).get());
      }
      StoreGuarantees g = StoreGuarantees.probe(S3ProxyExtension.client(), S3Uri.of(root.uri()));
      s3.add((System.nanoTime() - t0) / 1e6);
      if (!g.conditionalPut()) {
        System.out.println(
            "NOTE: " + server + " ignores If-None-Match: Keel refuses it for table commits");
      }
      Path dir = Files.createTempDirectory("keel-probe");
      long t1 = System.nanoTime();
      StorageProbe.problemForWriting(StorageRoot.of(dir.resolve("root").toString()))
          .ifPresent(
              p -> {
                throw new IllegalStateException(p);
              });
      local.add((System.nanoTime() - t1) / 1e6);
    }
    System.out.printf(
        Locale.ROOT,
        "start-up storage probe, median of %d: %s %.1f ms %s, local disk %.2f ms %s%n",
        reps,
        server,
        Machine.median(s3),
        fmt(s3),
        Machine.median(local),
        fmt(local));
  }

  private static void concurrentWriters(String server, int n, int commits) throws Exception {
    String table = "s3://" + S3ProxyExtension.newBucket("writers") + "/keel/tables/t";
    new DeltaTableWriter(table, TableSchemas.PREDICTIONS)
        .append(rows(0, 1)); // version 0 creates it
    String cp = System.getProperty("java.class.path");
    List<Process> processes = new ArrayList<>();
    for (int w = 0; w < n; w++) {
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", cp));
      for (String p :
          List.of("aws.endpointUrl", "aws.region", "aws.accessKeyId", "aws.secretAccessKey")) {
        cmd.add("-D" + p + "=" + System.getProperty(p));
      }
      cmd.addAll(
          List.of(
              StorageBenchmark.class.getName(),
              "--writer",
              table,
              Integer.toString(commits),
              Integer.toString(w + 1)));
      processes.add(new ProcessBuilder(cmd).redirectErrorStream(true).start());
    }
    List<Double> latencies = new ArrayList<>();
    List<Double> first = new ArrayList<>();
    long conflicts = 0;
    long started = System.nanoTime();
    for (Process p : processes) {
      try (BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = out.readLine()) != null; ) {
          if (line.startsWith("first-commit-ms ")) {
            first.add(Double.parseDouble(line.substring("first-commit-ms ".length())));
          } else if (line.startsWith("commit-ms ")) {
            latencies.add(Double.parseDouble(line.substring("commit-ms ".length())));
          } else if (line.startsWith("conflicts ")) {
            conflicts += Long.parseLong(line.substring("conflicts ".length()));
          } else if (line.startsWith("ERROR")) {
            System.out.println("writer: " + line);
          }
        }
      }
      if (p.waitFor() != 0) {
        throw new IllegalStateException("a writer process exited with " + p.exitValue());
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    long last = DeltaTables.latestVersion(DeltaTables.defaultEngine(), table).orElseThrow();
    Collections.sort(latencies);
    System.out.printf(
        Locale.ROOT,
        "%s, %d writer processes x %d appends: commits kept %d of %d (table at version %d),"
            + " conflicts retried %d, commit latency p50 %.0f ms p99 %.0f ms (each writer's first commit, with its"
            + " JVM's start: median %.0f ms), %.1f s in all%n",
        server,
        n,
        commits,
        last,
        (long) n * commits,
        last,
        conflicts,
        percentile(latencies, 50),
        percentile(latencies, 99),
        Machine.median(first),
        seconds);
  }

  /**
   * One writer process: M appends, each timed; prints "commit-ms X" per append and "conflicts C".
   */
  private static void writer(String table, int commits, int id) {
    DeltaTableWriter out = new DeltaTableWriter(table, TableSchemas.PREDICTIONS);
    try {
      for (int c = 0; c < commits; c++) {
        long t0 = System.nanoTime();
        out.append(rows(id * 1_000_000L + c * 10L, 3));
        // a writer's first commit also starts its engine, Hadoop's S3A and the JIT: reported apart
        System.out.printf(
            Locale.ROOT,
            "%s %.2f%n",
            c == 0 ? "first-commit-ms" : "commit-ms",
            (System.nanoTime() - t0) / 1e6);
      }
    } catch (RuntimeException e) {
      System.out.println("ERROR " + e.getMessage());
      System.exit(1);
    }
    System.out.println("conflicts " + S3ConditionalPutLogStore.conflictsSeen());
  }

  private static Columns rows(long firstId, int n) {
    long[] ids = new long[n];
    int[] labels = new int[n];
    double[] scores = new double[n];
    String[] text = new String[n];
    long[] versions = new long[n];
    for (int i = 0; i < n; i++) {
      ids[i] = firstId + i;
      text[i] = "w";
    }
    return Columns.of(n)
        .add("id", ids)
        .add("predicted_label", labels)
        .add("score", scores)
        .add("checkpoint_id", text)
        .add("source_table_version", versions)
        .add("source_table_uri", text)
        .add("model_version", text)
        .add("run_id", text);
  }

  private static double percentile(List<Double> sorted, int p) {
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }

  private static String fmt(List<Double> values) {
    return values.stream().map(v -> String.format(Locale.ROOT, "%.1f", v)).toList().toString();
  }
}
