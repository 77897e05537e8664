package dev.keel.service.dev;

import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.service.api.ApiServer;
import dev.keel.service.api.ApiToken;
import dev.keel.service.security.DataRoots;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.storage.StorageRoot;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Everything on one machine: a Temporal server bound to 127.0.0.1 (the CLI's durable dev server or
 * the in-memory Java test server) unless a cluster address is given, every worker in this JVM, and
 * the REST API on 127.0.0.1.
 */
public final class DevStack implements AutoCloseable {
  /** Which Temporal a dev stack talks to. */
  public enum Backend {
    /**
     * {@code temporal server start-dev} with its database under the storage root: durable, web UI.
     */
    CLI,
    /** Temporal's Java test server in this JVM: zero install, state in memory. */
    EMBEDDED,
    /** A Temporal frontend somebody else runs. */
    REMOTE;

    /**
     * What {@code --temporal} asks for: {@code cli}, {@code embedded}, or null/{@code auto} to
     * pick.
     */
    public static Backend choose(String requested, Optional<Path> cliBinary) {
      if (requested == null || requested.isBlank() || requested.equalsIgnoreCase("auto")) {
        return cliBinary.isPresent() ? CLI : EMBEDDED;
      }
      return switch (requested.toLowerCase(Locale.ROOT)) {
        case "cli" -> CLI;
        case "embedded" -> EMBEDDED;
        default -> REMOTE;
      };
    }
  }

  /**
   * How to start a dev stack. {@code apiPort} -1 means no REST API. Its requests may name places in
   * the storage root, the demo's data directory and {@code dataRoots}.
   */
  public record Config(
      Backend backend,
      String remoteAddress,
      int temporalPort,
      int uiPort,
      StorageRoot storage,
      int apiPort,
      int trainThreads,
      List<String> dataRoots) {
    public Config {
      dataRoots = List.copyOf(dataRoots);
    }

    public Config(
        Backend backend,
        String remoteAddress,
        int temporalPort,
        int uiPort,
        StorageRoot storage,
        int apiPort,
        int trainThreads) {
      this(backend, remoteAddress, temporalPort, uiPort, storage, apiPort, trainThreads, List.of());
    }

    /** The storage root, the demo's data directory and the data roots given. */
    public DataRoots roots() {
      List<String> roots = new ArrayList<>(List.of(IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR));
      roots.addAll(dataRoots);
      return DataRoots.of(storage, roots);
    }
  }

  private final AutoCloseable server;
  private final KeelWorkerHost workers;
  private final ApiServer api;
  private final String address;
  private final AutoCloseable record;

  private DevStack(
      AutoCloseable server,
      KeelWorkerHost workers,
      ApiServer api,
      String address,
      AutoCloseable record) {
    this.server = server;
    this.workers = workers;
    this.api = api;
    this.address = address;
    this.record = record;
  }

  /** Kept for callers that only know an address: null embeds the Java test server. */
  public static DevStack start(
      String temporalAddress,
      int temporalPort,
      StorageRoot storage,
      int apiPort,
      int trainThreads,
      PrintStream out) {
    Backend b = temporalAddress == null ? Backend.EMBEDDED : Backend.REMOTE;
    return start(
        new Config(
            b, temporalAddress, temporalPort, temporalPort + 1000, storage, apiPort, trainThreads),
        out);
  }

  public static DevStack start(Config config, PrintStream out) {
    boolean local = config.backend() != Backend.REMOTE;
    LocalStacks.requireFree(
        List.of(
            new LocalStacks.Port(local ? config.temporalPort() : 0, "Temporal"),
            new LocalStacks.Port(config.backend() == Backend.CLI ? config.uiPort() : 0, "web UI"),
            new LocalStacks.Port(config.apiPort(), "REST API")));
    AutoCloseable server = null;
    String address;
    boolean javaTestServer = false;
    switch (config.backend()) {
      case CLI -> {
        Path binary =
            TemporalCliServer.locate()
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "--temporal cli: no `temporal` binary in $KEEL_TEMPORAL_CLI, $KEEL_HOME/.tools, ./.tools or on the PATH; build it with "
                                + "'GOBIN=$PWD/.tools go install github.com/temporalio/cli/cmd/temporal@v1.5.1' or use --temporal embedded"));
        Path db = databaseFile(config.storage(), out);
        TemporalCliServer cli =
            TemporalCliServer.start(
                binary, config.temporalPort(), config.uiPort(), db, Duration.ofSeconds(90));
        server = cli;
        address = cli.address();
        out.println(
            "Temporal: the Temporal CLI's dev server ("
                + binary
                + " server start-dev) on "
                + address
                + " (loopback only; durable: state in "
                + db
                + ")");
        out.println("Web UI: " + cli.uiUrl() + "/namespaces/default/workflows");
      }
      case EMBEDDED -> {
        LoopbackTemporalServer embedded = LoopbackTemporalServer.start(config.temporalPort());
        server = embedded;
        address = embedded.address();
        javaTestServer = true;
        out.println(
            "Temporal: embedded Java test server on "
                + address
                + " (loopback only; state lives in memory;"
                + " `--temporal cli` with the Temporal CLI installed keeps it across restarts)");
      }
      default -> {
        address = config.remoteAddress();
        out.println("Temporal: " + address);
      }
    }
    try {
      KeelWorkerHost workers =
          KeelWorkerHost.start(
              WorkerHostOptions.newBuilder()
                  .setTemporalAddress(address)
                  .setStorageRoot(config.storage())
                  .optDevServer(javaTestServer)
                  .optTrainThreads(config.trainThreads())
                  .build());
      out.println(
          "Workers: keel-control, keel-etl, keel-train-cpu, keel-infer in this JVM; storage "
              + config.storage());
      ApiServer api = null;
      if (config.apiPort() >= 0) {
        api =
            ApiServer.start(
                "127.0.0.1", config.apiPort(), workers.client(), config.roots(), ApiToken.none());
        out.println("API: " + api.url() + "/api/v1/health");
      }
      AutoCloseable record =
          local && config.temporalPort() > 0
              ? LocalStacks.record(
                  LocalStacks.ofThisProcess(
                      config.storage().toString(),
                      config.temporalPort(),
                      config.backend() == Backend.CLI ? config.uiPort() : -1,
                      config.apiPort(),
                      config.backend().name()))
              : () -> {};
      return new DevStack(server, workers, api, address, record);
    } catch (RuntimeException e) {
      closeQuietly(server);
      throw e;
    }
  }

  /**
   * {@code <storage root>/temporal/dev.db} for local roots; an s3:// root cannot hold SQLite, so
   * the database goes to {@code ./keel-data/temporal/dev.db}.
   */
  static Path databaseFile(StorageRoot storage, PrintStream out) {
    if (storage.isLocal()) {
      return storage.localPath().resolve("temporal").resolve("dev.db").toAbsolutePath();
    }
    Path local = Path.of("keel-data", "temporal", "dev.db").toAbsolutePath();
    out.println(
        "Temporal: the storage root "
            + storage
            + " is not local; the dev server's database goes to "
            + local);
    return local;
  }

  public KeelWorkerHost workers() {
    return workers;
  }

  /** {@code host:port} of the Temporal frontend this stack uses. */
  public String address() {
    return address;
  }

  @Override
  public void close() {
    closeQuietly(record);
    if (api != null) {
      api.close();
    }
    workers.close();
    closeQuietly(server);
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception ignored) {
      // best effort on the way out
    }
  }
}
