package dev.keel.service.worker;

import dev.keel.workflows.KeelSearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers Keel's search attributes before any workflow runs: an upsert of an unregistered
 * attribute fails the workflow task, which Temporal retries forever. Attributes already there are
 * left alone; a cluster that forbids registration gets a warning naming what to add.
 */
final class SearchAttributeRegistrar {
  private static final Logger log = LoggerFactory.getLogger(SearchAttributeRegistrar.class);

  private SearchAttributeRegistrar() {}

  static void register(WorkflowServiceStubs stubs, String namespace) {
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(OperatorServiceStubsOptions.newBuilder()
        .setChannel(stubs.getRawChannel()).validateAndBuildWithDefaults());
    try {
      Map<String, IndexedValueType> missing = new TreeMap<>(KeelSearchAttributes.ALL);
      try {
        missing.keySet().removeAll(operator.blockingStub()
            .listSearchAttributes(ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build())
            .getCustomAttributesMap().keySet());
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) {
          throw e;
        }
        // Temporal's Java test server (`keel dev`) cannot list them but can add them: add each, skipping existing ones.
        missing.forEach((name, type) -> addIfAbsent(operator, namespace, name, type));
        return;
      }
      if (missing.isEmpty()) {
        return;
      }
      operator.blockingStub().addSearchAttributes(AddSearchAttributesRequest.newBuilder()
          .setNamespace(namespace).putAllSearchAttributes(missing).build());
      log.info("registered search attributes {}", missing.keySet());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
        return;
      }
      log.warn("cannot register Keel's search attributes {} in namespace {} ({}): add them with "
          + "`temporal operator search-attribute create`", KeelSearchAttributes.ALL, namespace, e.getStatus());
    } finally {
      operator.shutdown();
    }
  }

  private static void addIfAbsent(OperatorServiceStubs operator, String namespace, String name, IndexedValueType type) {
    try {
      operator.blockingStub().addSearchAttributes(AddSearchAttributesRequest.newBuilder()
          .setNamespace(namespace).putSearchAttributes(name, type).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
        throw e;
      }
    }
  }
}
