package dev.keel.storage.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.keel.storage.S3Clients;
import dev.keel.storage.S3Settings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 server that ignores {@code If-None-Match} on PUT, as moto 5.0, older MinIO releases and
 * some appliances do: a second "create only if absent" write of an object succeeds and replaces it.
 * It is S3Proxy behind a small forwarding proxy that drops that header (so S3Proxy runs without
 * request signatures, which name the dropped header). Everything else is S3Proxy's: listing, reads,
 * deletes.
 *
 * <p>{@link #settings()} reaches it; code under test that reads the process's AWS settings needs
 * them in the {@code aws.*} system properties, which {@link #pointAwsPropertiesHere()} sets (and
 * {@link S3ProxyExtension#start()} sets back).
 */
public final class IgnoresIfNoneMatchS3 {
  private static final Set<String> NOT_FORWARDED =
      Set.of(
          "host",
          "connection",
          "content-length",
          "expect",
          "upgrade",
          "transfer-encoding",
          "if-none-match");
  private static IgnoresIfNoneMatchS3 instance;

  private final URI endpoint;
  private final AtomicInteger droppedHeaders = new AtomicInteger();

  private IgnoresIfNoneMatchS3(URI endpoint) {
    this.endpoint = endpoint;
  }

  /** The JVM's server (started once). */
  public static synchronized IgnoresIfNoneMatchS3 start() throws Exception {
    if (instance == null) {
      S3Proxy backend = S3ProxyExtension.startServer(AuthenticationType.NONE, null, null);
      URI target = URI.create("http://127.0.0.1:" + backend.getPort());
      HttpServer front = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      IgnoresIfNoneMatchS3 s3 =
          new IgnoresIfNoneMatchS3(URI.create("http://127.0.0.1:" + front.getAddress().getPort()));
      front.createContext("/", exchange -> s3.forward(client, target, exchange));
      front.setExecutor(
          Executors.newFixedThreadPool(
              4,
              r -> {
                Thread t = new Thread(r, "ignores-if-none-match");
                t.setDaemon(true);
                return t;
              }));
      front.start();
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> front.stop(0), "ignores-if-none-match-stop"));
      instance = s3;
    }
    return instance;
  }

  public URI endpoint() {
    return endpoint;
  }

  /** How many requests came with an {@code If-None-Match} that was not passed on. */
  public int droppedHeaders() {
    return droppedHeaders.get();
  }

  public S3Settings settings() {
    return new S3Settings(endpoint, S3ProxyExtension.REGION, true, null, null, false)
        .withStaticCredentials("any", "any");
  }

  public S3Client client() {
    return S3Clients.get(settings());
  }

  /** Points the {@code aws.*} system properties (the settings Keel reads) at this server. */
  public void pointAwsPropertiesHere() {
    S3ProxyExtension.pointAwsProperties(endpoint, "any", "any");
  }

  /** Creates a bucket with a unique name starting with {@code prefix} and returns its name. */
  public String newBucket(String prefix) {
    String name =
        (prefix + "-" + UUID.randomUUID().toString().substring(0, 8)).toLowerCase(Locale.ROOT);
    client().createBucket(b -> b.bucket(name));
    return name;
  }

  private void forward(HttpClient client, URI target, HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      HttpRequest.Builder request =
          HttpRequest.newBuilder(
                  target.resolve(
                      exchange.getRequestURI().getRawPath()
                          + (exchange.getRequestURI().getRawQuery() == null
                              ? ""
                              : "?" + exchange.getRequestURI().getRawQuery())))
              .method(
                  exchange.getRequestMethod(),
                  body.length == 0
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofByteArray(body));
      for (Map.Entry<String, List<String>> h : exchange.getRequestHeaders().entrySet()) {
        String name = h.getKey().toLowerCase(Locale.ROOT);
        if (name.equals("if-none-match")) {
          droppedHeaders.incrementAndGet();
        }
        if (!NOT_FORWARDED.contains(name)) {
          h.getValue().forEach(v -> request.header(h.getKey(), v));
        }
      }
      HttpResponse<byte[]> response =
          client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      response
          .headers()
          .map()
          .forEach(
              (name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase(Locale.ROOT))
                    && !name.equals(":status")) {
                  exchange.getResponseHeaders().put(name, values);
                }
              });
      byte[] out = response.body();
      boolean head = exchange.getRequestMethod().equals("HEAD");
      if (head) {
        // the server sends no body to a HEAD; the object's length is the header (S3A reads it)
        response
            .headers()
            .firstValue("content-length")
            .ifPresent(v -> exchange.getResponseHeaders().set("Content-Length", v));
      }
      boolean noBody = head || out.length == 0;
      exchange.sendResponseHeaders(response.statusCode(), noBody ? -1 : out.length);
      if (!noBody) {
        try (OutputStream o = exchange.getResponseBody()) {
          o.write(out);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
