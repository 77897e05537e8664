package dev.keel.service.cli;

import dev.keel.service.schedule.PipelineSchedules;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.Optional;

/**
 * The Temporal a client command talks to, in the namespace Keel's commands use; closing it shuts
 * the stubs down unless someone else (a stack the command started) owns them.
 */
final class TemporalConnection implements AutoCloseable {
  /** The namespace of every client command (keel serve alone takes --namespace). */
  static final String NAMESPACE = "default";

  private final WorkflowServiceStubs stubs;
  private final boolean owned;

  private TemporalConnection(WorkflowServiceStubs stubs, boolean owned) {
    this.stubs = stubs;
    this.owned = owned;
  }

  /** Stubs this connection shuts down when closed. */
  static TemporalConnection owning(WorkflowServiceStubs stubs) {
    return new TemporalConnection(stubs, true);
  }

  /** Stubs their owner shuts down (a stack the command started). */
  static TemporalConnection borrowing(WorkflowServiceStubs stubs) {
    return new TemporalConnection(stubs, false);
  }

  WorkflowServiceStubs stubs() {
    return stubs;
  }

  /** A client whose runs use their workers' storage root. */
  WorkflowClient client() {
    return KeelWorkerHost.client(stubs, NAMESPACE);
  }

  /** A client whose runs carry {@code root} to their workers; empty: the workers' own. */
  WorkflowClient client(Optional<StorageRoot> root) {
    return KeelWorkerHost.client(stubs, NAMESPACE, root.orElse(null));
  }

  PipelineSchedules schedules() {
    return new PipelineSchedules(stubs, NAMESPACE);
  }

  @Override
  public void close() {
    if (owned) {
      stubs.shutdown();
    }
  }
}
