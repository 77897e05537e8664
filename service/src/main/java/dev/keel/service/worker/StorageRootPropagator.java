package dev.keel.service.worker;

import dev.keel.storage.StorageRoot;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.context.ContextPropagator;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.workflow.unsafe.WorkflowUnsafe;
import java.util.Map;
import java.util.Optional;

/**
 * Carries a run's storage root in the Temporal header of everything the run starts: the client that
 * starts a workflow puts its root there, and Temporal hands the header on to the workflow's
 * activities and child workflows, so every activity of a pipeline, however deep, knows the root it
 * belongs to ({@link StorageRootCheck} refuses it on a worker that serves another one).
 *
 * <p>Inside a workflow the root is the one its own header brought (none for a run started without
 * one, e.g. by {@code temporal workflow start}): it comes from history, so replay sees the same.
 */
public final class StorageRootPropagator implements ContextPropagator {
  static final String HEADER = "keel-storage-root";
  private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

  private final String clientRoot;

  /**
   * @param clientRoot the root runs started by this client use; null to start them without one
   */
  public StorageRootPropagator(StorageRoot clientRoot) {
    this.clientRoot = clientRoot == null ? null : clientRoot.toString();
  }

  @Override
  public String getName() {
    return HEADER;
  }

  @Override
  public Map<String, Payload> serializeContext(Object context) {
    if (context == null) {
      return Map.of();
    }
    return Map.of(
        HEADER, DefaultDataConverter.STANDARD_INSTANCE.toPayload(context.toString()).orElseThrow());
  }

  @Override
  public Object deserializeContext(Map<String, Payload> header) {
    return rootIn(header).orElse(null);
  }

  @Override
  public Object getCurrentContext() {
    String current = CURRENT.get();
    if (current != null || WorkflowUnsafe.isWorkflowThread()) {
      return current;
    }
    return clientRoot;
  }

  @Override
  public void setCurrentContext(Object context) {
    if (context == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(context.toString());
    }
  }

  /** The storage root a header carries, if any. */
  static Optional<String> rootIn(Map<String, Payload> header) {
    Payload p = header.get(HEADER);
    return p == null
        ? Optional.empty()
        : Optional.of(
            DefaultDataConverter.STANDARD_INSTANCE.fromPayload(p, String.class, String.class));
  }
}
