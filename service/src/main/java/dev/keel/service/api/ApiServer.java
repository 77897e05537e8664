package dev.keel.service.api;

import dev.keel.storage.StorageRoot;
import dev.keel.tables.drift.DriftTable;
import dev.keel.tables.registry.ModelRegistryTable;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.client.WorkflowClient;
import java.util.Map;

/** The Micronaut HTTP server of the REST API, bound to one host and port. */
public final class ApiServer implements AutoCloseable {
  private final ApplicationContext context;
  private final EmbeddedServer server;

  private ApiServer(ApplicationContext context, EmbeddedServer server) {
    this.context = context;
    this.server = server;
  }

  /** Serves the API of the Temporal namespace of {@code client}, the tables and the model registry of {@code storage}. */
  public static ApiServer start(String host, int port, WorkflowClient client, StorageRoot storage) {
    ApplicationContext context = ApplicationContext.builder()
        .properties(Map.of("micronaut.server.host", host, "micronaut.server.port", port,
            "micronaut.application.name", "keel"))
        .singletons(client, storage, new ModelRegistryTable(storage), new DriftTable(storage))
        .deduceEnvironment(false)
        .banner(false)
        .start();
    EmbeddedServer server = context.getBean(EmbeddedServer.class);
    if (!server.isRunning()) {
      server.start();
    }
    return new ApiServer(context, server);
  }

  public String url() {
    return "http://" + server.getHost() + ":" + server.getPort();
  }

  @Override
  public void close() {
    server.stop();
    context.close();
  }
}
