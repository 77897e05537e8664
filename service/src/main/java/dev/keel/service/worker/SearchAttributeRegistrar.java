package dev.keel.service.worker;

import dev.keel.workflows.KeelSearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesResponse;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers Keel's search attributes on a namespace through the OperatorService, before any Keel
 * workflow runs (a workflow that upserts an unregistered attribute fails its task). Works on a
 * Temporal cluster, the CLI's dev server and the Java test server alike.
 */
final class SearchAttributeRegistrar {
  private static final Logger log = LoggerFactory.getLogger(SearchAttributeRegistrar.class);

  private SearchAttributeRegistrar() {}

  static void ensureRegistered(String address, String namespace, Duration timeout) {
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder()
                .setTarget(address)
                .validateAndBuildWithDefaults());
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      Map<String, IndexedValueType> missing;
      try {
        missing = untilDeadline(deadline, () -> missing(operator, namespace));
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
          throw e;
        }
        // Temporal's Java test server can add search attributes but not list them.
        addAll(operator, namespace, all());
        return;
      }
      if (missing.isEmpty()) {
        return;
      }
      log.info("Registering search attributes {} on namespace {}", missing.keySet(), namespace);
      try {
        untilDeadline(
            deadline,
            () ->
                operator
                    .blockingStub()
                    .addSearchAttributes(
                        AddSearchAttributesRequest.newBuilder()
                            .setNamespace(namespace)
                            .putAllSearchAttributes(missing)
                            .build()));
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.PERMISSION_DENIED) {
          throw new IllegalStateException(
              "Keel's search attributes are not registered on namespace "
                  + namespace
                  + " and this worker may not add them; ask an operator to run: temporal operator search-attribute create "
                  + KeelSearchAttributes.ALL.stream()
                      .map(a -> "--name " + a.name() + " --type " + a.cliType())
                      .reduce((a, b) -> a + " " + b)
                      .orElse(""),
              e);
        }
        if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
          throw e;
        }
      }
      while (!untilDeadline(deadline, () -> missing(operator, namespace)).isEmpty()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "search attributes "
                  + missing(operator, namespace).keySet()
                  + " still missing on namespace "
                  + namespace
                  + " after "
                  + timeout.toSeconds()
                  + " s");
        }
        Thread.sleep(200);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while registering search attributes", e);
    } finally {
      operator.shutdown();
    }
  }

  /**
   * Calls {@code rpc}, again while the server answers that it is busy: a dev server that has just
   * started can refuse the first calls ("database is locked" from its SQLite store) on a loaded
   * machine. Any other status, an unreachable server, or a busy one past the deadline is the
   * caller's to handle.
   */
  private static <T> T untilDeadline(long deadline, Supplier<T> rpc) throws InterruptedException {
    while (true) {
      try {
        return rpc.get();
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        // a server that cannot be reached at all (wrong address: an I/O cause) is reported at once
        boolean busy =
            (code == Status.Code.UNAVAILABLE || code == Status.Code.RESOURCE_EXHAUSTED)
                && !(e.getCause() instanceof IOException);
        if (!busy || System.nanoTime() > deadline) {
          throw e;
        }
        log.debug("Temporal not ready for search attributes yet ({}); retrying", e.getStatus());
        Thread.sleep(250);
      }
    }
  }

  private static Map<String, IndexedValueType> all() {
    Map<String, IndexedValueType> all = new LinkedHashMap<>();
    KeelSearchAttributes.ALL.forEach(a -> all.put(a.name(), a.type()));
    return all;
  }

  private static void addAll(
      OperatorServiceStubs operator, String namespace, Map<String, IndexedValueType> attrs) {
    for (Map.Entry<String, IndexedValueType> a : attrs.entrySet()) {
      try {
        operator
            .blockingStub()
            .addSearchAttributes(
                AddSearchAttributesRequest.newBuilder()
                    .setNamespace(namespace)
                    .putSearchAttributes(a.getKey(), a.getValue())
                    .build());
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
          throw e;
        }
      }
    }
  }

  private static Map<String, IndexedValueType> missing(
      OperatorServiceStubs operator, String namespace) {
    ListSearchAttributesResponse have =
        operator
            .blockingStub()
            .listSearchAttributes(
                ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build());
    Map<String, IndexedValueType> missing = new LinkedHashMap<>();
    for (KeelSearchAttributes.Attribute a : KeelSearchAttributes.ALL) {
      if (!have.getCustomAttributesMap().containsKey(a.name())
          && !have.getSystemAttributesMap().containsKey(a.name())) {
        missing.put(a.name(), a.type());
      }
    }
    return missing;
  }
}
