package dev.keel.service.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.api.ApiToken;
import dev.keel.service.api.MetricsServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A worker's {@code --metrics} endpoint serves Prometheus text; like the API it needs no token on
 * loopback, refuses to listen elsewhere without one, and with one answers only requests that carry
 * it.
 */
class WorkerMetricsServerFollowsTheApisTokenRuleTest {
  private static final String TOKEN = "fedcba9876543210fedcba9876543210";
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void onLoopbackItServesPrometheusText() throws Exception {
    try (MetricsServer server = MetricsServer.start("127.0.0.1:0", ApiToken.none())) {
      HttpResponse<String> r = get(server, Optional.empty());
      assertEquals(200, r.statusCode());
      assertTrue(
          r.headers()
              .firstValue("Content-Type")
              .orElse("")
              .startsWith("text/plain; version=0.0.4"));
      assertTrue(r.body().contains("# TYPE jvm_memory_used_bytes gauge"), r.body());
    }
  }

  @Test
  void elsewhereOnlyWithTheToken() throws Exception {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> MetricsServer.start("0.0.0.0:0", ApiToken.none()));
    assertTrue(e.getMessage().contains(ApiToken.ENV), e.getMessage());
    try (MetricsServer server = MetricsServer.start("0.0.0.0:0", ApiToken.of(TOKEN))) {
      assertEquals(401, get(server, Optional.empty()).statusCode());
      assertEquals(
          401, get(server, Optional.of("Bearer " + TOKEN.substring(1) + "0")).statusCode());
      assertEquals(200, get(server, Optional.of("Bearer " + TOKEN)).statusCode());
    }
  }

  @Test
  void anAddressWithoutAPortIsNamed() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> MetricsServer.start("9464", ApiToken.none()));
    assertEquals("--metrics: '9464' is not HOST:PORT (e.g. 127.0.0.1:9464)", e.getMessage());
  }

  private static HttpResponse<String> get(MetricsServer server, Optional<String> authorization)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/metrics"));
    authorization.ifPresent(a -> b.header("Authorization", a));
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
