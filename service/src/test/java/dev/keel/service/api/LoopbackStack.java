package dev.keel.service.api;

import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;

/**
 * A loopback Temporal test server, a client of it and a fresh local storage root: what an API test
 * serves.
 */
public final class LoopbackStack implements AutoCloseable {
  private final LoopbackTemporalServer temporal;
  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final StorageRoot root;

  private LoopbackStack(
      LoopbackTemporalServer temporal, WorkflowServiceStubs stubs, StorageRoot root) {
    this.temporal = temporal;
    this.stubs = stubs;
    this.client = KeelWorkerHost.client(stubs, "default");
    this.root = root;
  }

  public static LoopbackStack start(String name) throws Exception {
    LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0);
    return new LoopbackStack(
        temporal,
        KeelWorkerHost.connect(temporal.address()),
        StorageRoot.of(TestDirs.create(name).toString()));
  }

  public WorkflowClient client() {
    return client;
  }

  public StorageRoot root() {
    return root;
  }

  /** HOST:PORT of the Temporal test server, for {@code keel ... --temporal}. */
  public String temporalAddress() {
    return temporal.address();
  }

  @Override
  public void close() {
    stubs.shutdown();
    temporal.close();
  }
}
