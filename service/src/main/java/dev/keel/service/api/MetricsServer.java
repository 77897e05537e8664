package dev.keel.service.api;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.keel.service.metrics.KeelMetrics;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * {@code /metrics} alone, for a {@code keel worker} process (and each of its slot processes), which
 * serves no API: the same text as the API's {@code /metrics}, under the same rule — off loopback
 * only with the bearer token of {@link ApiToken}.
 */
public final class MetricsServer implements AutoCloseable {
  private final HttpServer server;
  private final String host;

  private MetricsServer(HttpServer server, String host) {
    this.server = server;
    this.host = host;
  }

  /** Where a metrics server listens; port 0 picks a free one. */
  public record Address(String host, int port) {
    /**
     * @param address {@code HOST:PORT}
     * @throws IllegalArgumentException naming {@code --metrics} and the value, for anything else
     */
    public static Address parse(String address) {
      int colon = address.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException(
            "--metrics: '" + address + "' is not HOST:PORT (e.g. 127.0.0.1:9464)");
      }
      try {
        return new Address(
            address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--metrics: '" + address + "' has no port number (e.g. 127.0.0.1:9464)");
      }
    }

    /** The address of slot process {@code slot}: the next ports up, or again a free one. */
    public Address forSlot(int slot) {
      return new Address(host, port == 0 ? 0 : port + 1 + slot);
    }

    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  /**
   * @param address {@code HOST:PORT}; port 0 picks a free one
   * @throws IllegalArgumentException for a malformed address, or one off loopback without a token
   */
  public static MetricsServer start(String address, ApiToken token) throws IOException {
    return start(Address.parse(address), token);
  }

  /**
   * @throws IllegalArgumentException for an address off loopback without a token
   */
  public static MetricsServer start(Address address, ApiToken token) throws IOException {
    if (!token.required() && !ApiServer.isLoopback(address.host())) {
      throw new IllegalArgumentException(
          "--metrics would listen on "
              + address.host()
              + ", which is not a loopback"
              + " address, without a token: set "
              + ApiToken.ENV
              + " or use 127.0.0.1");
    }
    HttpServer server = HttpServer.create(new InetSocketAddress(address.host(), address.port()), 0);
    server.createContext("/metrics", exchange -> answer(exchange, token));
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "keel-metrics-http");
              t.setDaemon(true);
              return t;
            }));
    server.start();
    return new MetricsServer(server, address.host());
  }

  private static void answer(HttpExchange exchange, ApiToken token) throws IOException {
    try (exchange) {
      if (!token.accepts(exchange.getRequestHeaders().getFirst("Authorization"))) {
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"keel\"");
        send(
            exchange,
            401,
            "text/plain; charset=utf-8",
            "this endpoint requires 'Authorization: Bearer <" + ApiToken.ENV + ">'\n");
        return;
      }
      send(exchange, 200, MetricsController.PROMETHEUS_TEXT, KeelMetrics.scrape());
    }
  }

  private static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public String url() {
    return "http://" + host + ":" + port() + "/metrics";
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
