package dev.keel.service.dev;

import dev.keel.activities.storage.StorageRoot;
import dev.keel.service.api.ApiServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import java.io.PrintStream;

/**
 * Everything on one machine: a loopback Temporal server (unless an address is given), every
 * worker in this JVM, and the REST API on 127.0.0.1.
 */
public final class DevStack implements AutoCloseable {
  private final LoopbackTemporalServer server;
  private final KeelWorkerHost workers;
  private final ApiServer api;

  private DevStack(LoopbackTemporalServer server, KeelWorkerHost workers, ApiServer api) {
    this.server = server;
    this.workers = workers;
    this.api = api;
  }

  /**
   * @param temporalAddress a cluster to use, or null to embed Temporal's Java test server
   * @param temporalPort port of the embedded server (7233 by default)
   * @param apiPort REST port, or -1 for no API
   */
  public static DevStack start(String temporalAddress, int temporalPort, StorageRoot storage, int apiPort,
      int trainThreads, PrintStream out) {
    LoopbackTemporalServer server = null;
    String address = temporalAddress;
    if (address == null) {
      server = LoopbackTemporalServer.start(temporalPort);
      address = server.address();
      out.println("Temporal: embedded Java test server on " + address + " (loopback only; state lives in memory)");
    } else {
      out.println("Temporal: " + address);
    }
    KeelWorkerHost workers = KeelWorkerHost.start(WorkerHostOptions.newBuilder()
        .setTemporalAddress(address)
        .setStorageRoot(storage)
        .optDevServer(server != null)
        .optTrainThreads(trainThreads)
        .build());
    out.println("Workers: keel-control, keel-etl, keel-train-cpu, keel-infer in this JVM; storage " + storage);
    ApiServer api = null;
    if (apiPort >= 0) {
      api = ApiServer.start("127.0.0.1", apiPort, workers.client());
      out.println("API: " + api.url() + "/api/v1/health");
    }
    return new DevStack(server, workers, api);
  }

  public KeelWorkerHost workers() {
    return workers;
  }

  @Override
  public void close() {
    if (api != null) {
      api.close();
    }
    workers.close();
    if (server != null) {
      server.close();
    }
  }
}
