package dev.keel.service.pipeline;

import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.storage.StorageRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * A Temporal server on loopback and every Keel worker in this JVM, on a fresh local storage root:
 * what `keel dev` runs.
 */
final class InProcessStack implements AutoCloseable {
  final Path storage;
  final LoopbackTemporalServer server;
  final KeelWorkerHost workers;

  private InProcessStack(Path storage, LoopbackTemporalServer server, KeelWorkerHost workers) {
    this.storage = storage;
    this.server = server;
    this.workers = workers;
  }

  /**
   * Storage under the tests' scratch directory, named {@code <prefix>-<uuid>}; 2 training threads.
   */
  static InProcessStack start(String prefix) throws Exception {
    Path storage =
        Files.createDirectories(Path.of(System.getProperty("keel.test.tmp", "target/test-tmp")))
            .resolve(prefix + "-" + UUID.randomUUID());
    LoopbackTemporalServer server = LoopbackTemporalServer.start(0);
    KeelWorkerHost workers =
        KeelWorkerHost.start(
            WorkerHostOptions.newBuilder()
                .setTemporalAddress(server.address())
                .setStorageRoot(StorageRoot.of(storage.toString()))
                .optDevServer(true)
                .optTrainThreads(2)
                .build());
    return new InProcessStack(storage, server, workers);
  }

  @Override
  public void close() {
    workers.close();
    server.close();
  }
}
