package dev.keel.service.api;

import dev.keel.api.config.ConfigLimits;
import dev.keel.service.security.ApiAudit;
import dev.keel.service.security.DataRoots;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.drift.DriftTable;
import dev.keel.tables.registry.ModelRegistryTable;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.web.router.Router;
import io.temporal.client.WorkflowClient;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/** The Micronaut HTTP server of the REST API, bound to one host and port. */
public final class ApiServer implements AutoCloseable {
  private final ApplicationContext context;
  private final EmbeddedServer server;
  private final ApiAudit audit;

  private ApiServer(ApplicationContext context, EmbeddedServer server, ApiAudit audit) {
    this.context = context;
    this.server = server;
    this.audit = audit;
  }

  /**
   * Serves the API of the Temporal namespace of {@code client}, the tables and the model registry
   * of {@code storage}.
   */
  public static ApiServer start(String host, int port, WorkflowClient client, StorageRoot storage) {
    return start(host, port, client, storage, ApiToken.none());
  }

  /**
   * As {@link #start(String, int, WorkflowClient, StorageRoot)}, requiring {@code token} on every
   * request but the health probes.
   *
   * @throws IllegalArgumentException when {@code host} is not a loopback address and there is no
   *     token
   */
  public static ApiServer start(
      String host, int port, WorkflowClient client, StorageRoot storage, ApiToken token) {
    return start(host, port, client, DataRoots.of(storage), token, TlsOptions.none());
  }

  /**
   * As {@link #start(String, int, WorkflowClient, StorageRoot, ApiToken)}; requests may name places
   * inside {@code roots} only (its storage root and the data roots).
   */
  public static ApiServer start(
      String host, int port, WorkflowClient client, DataRoots roots, ApiToken token) {
    return start(host, port, client, roots, token, TlsOptions.none());
  }

  /**
   * As {@link #start(String, int, WorkflowClient, DataRoots, ApiToken, TlsOptions)} with the
   * storage root as the only root.
   */
  public static ApiServer start(
      String host,
      int port,
      WorkflowClient client,
      StorageRoot storage,
      ApiToken token,
      TlsOptions tls) {
    return start(host, port, client, DataRoots.of(storage), token, tls);
  }

  /**
   * As {@link #start(String, int, WorkflowClient, DataRoots, ApiToken)}, over HTTPS only when
   * {@code tls} is enabled. Without a token only requests addressed to loopback names are served
   * ({@link HostCheck}).
   *
   * @throws IllegalArgumentException as there
   */
  public static ApiServer start(
      String host,
      int port,
      WorkflowClient client,
      DataRoots roots,
      ApiToken token,
      TlsOptions tls) {
    StorageRoot storage = roots.storage();
    if (!token.required() && !isLoopback(host)) {
      throw new IllegalArgumentException(
          "the API would listen on "
              + host
              + ", which is not a loopback address,"
              + " without a token: set "
              + ApiToken.ENV
              + " (at least 16 characters, e.g. openssl rand -hex 32) or"
              + " listen on 127.0.0.1");
    }
    ApiAudit audit = new ApiAudit(storage);
    ApplicationContext context =
        ApplicationContext.builder()
            .properties(
                Map.of(
                    "micronaut.server.host",
                    host,
                    "micronaut.server.port",
                    port,
                    "micronaut.application.name",
                    "keel",
                    // The controllers block on Temporal and Delta: run blocking methods on the I/O
                    // pool, not on
                    // Netty's few event loops, where a handful of slow calls would hold up every
                    // other request.
                    "micronaut.server.thread-selection",
                    "AUTO",
                    // Every body the API takes is a config or a few fields of JSON: refuse more
                    // than a config may be
                    // (413) before it is buffered, where Micronaut's default would take 10 MiB
                    "micronaut.server.max-request-size",
                    ConfigLimits.MAX_CONFIG_BYTES))
            .properties(tls.serverProperties(port))
            .singletons(
                client,
                storage,
                roots,
                new ModelRegistryTable(storage),
                new DriftTable(storage),
                token,
                audit)
            .singletons(token.required() ? HostCheck.off() : HostCheck.loopbackNames(host))
            .deduceEnvironment(false)
            .banner(false)
            .start();
    EmbeddedServer server = context.getBean(EmbeddedServer.class);
    if (!server.isRunning()) {
      server.start();
    }
    return new ApiServer(context, server, audit);
  }

  /** Whether {@code host} names only this machine (127.0.0.0/8, ::1, localhost). */
  public static boolean isLoopback(String host) {
    try {
      for (InetAddress a : InetAddress.getAllByName(host)) {
        if (!a.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("cannot listen on " + host + ": unknown host", e);
    }
  }

  /**
   * Every route the server answers but HEAD, as {@code METHOD /path/{variable}} (tests compare them
   * with the OpenAPI document).
   */
  SortedSet<String> routes() {
    SortedSet<String> out = new TreeSet<>();
    context
        .getBean(Router.class)
        .uriRoutes()
        .filter(
            r ->
                !r.getHttpMethodName()
                    .equals("HEAD")) // Micronaut answers HEAD for every GET by itself
        .forEach(r -> out.add(r.getHttpMethodName() + " " + r.getUriMatchTemplate().toString()));
    return out;
  }

  public int port() {
    return server.getPort();
  }

  public String url() {
    return server.getScheme() + "://" + server.getHost() + ":" + server.getPort();
  }

  @Override
  public void close() {
    server.stop();
    audit.close(); // what was answered is recorded before the process may end
    context.close();
  }
}
