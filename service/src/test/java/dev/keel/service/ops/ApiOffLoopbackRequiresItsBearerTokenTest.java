package dev.keel.service.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.api.ApiServer;
import dev.keel.service.api.ApiToken;
import dev.keel.service.api.LoopbackStack;
import dev.keel.storage.StorageRoot;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The API on an address other than loopback refuses to start without a token, and with one refuses
 * every request without it or with another (401 and a message), except the health probes; on
 * loopback it needs none.
 */
class ApiOffLoopbackRequiresItsBearerTokenTest {
  private static final String TOKEN = "0123456789abcdef0123456789abcdef";
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static LoopbackStack stack;
  private static WorkflowClient client;
  private static StorageRoot root;

  @BeforeAll
  static void start() throws Exception {
    stack = LoopbackStack.start("token");
    client = stack.client();
    root = stack.root();
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  @Test
  void everyInterfaceWithoutATokenIsRefusedNamingTheVariable() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ApiServer.start("0.0.0.0", 0, client, root, ApiToken.none()));
    assertTrue(
        e.getMessage().contains("0.0.0.0") && e.getMessage().contains(ApiToken.ENV),
        e.getMessage());
    IllegalArgumentException shortToken =
        assertThrows(IllegalArgumentException.class, () -> ApiToken.of("secret"));
    assertTrue(shortToken.getMessage().contains("at least 16"), shortToken.getMessage());
  }

  @Test
  void withATokenOnlyRequestsCarryingItAreServed() throws Exception {
    try (ApiServer api = ApiServer.start("0.0.0.0", 0, client, root, ApiToken.of(TOKEN))) {
      String base = "http://127.0.0.1:" + api.port();
      HttpResponse<String> none = get(base + "/api/v1/models", Optional.empty());
      assertEquals(401, none.statusCode(), none.body());
      assertTrue(none.body().contains("Authorization: Bearer"), none.body());
      assertEquals(
          "Bearer realm=\"keel\"", none.headers().firstValue("WWW-Authenticate").orElse(""));

      HttpResponse<String> wrong =
          get(base + "/api/v1/models", Optional.of("Bearer " + TOKEN.replace('0', '1')));
      assertEquals(401, wrong.statusCode(), wrong.body());
      assertFalse(wrong.body().contains(TOKEN), "the answer never echoes the token");
      assertEquals(
          401, get(base + "/metrics", Optional.of(TOKEN)).statusCode(), "the scheme is required");

      assertEquals(200, get(base + "/api/v1/models", Optional.of("Bearer " + TOKEN)).statusCode());
      assertEquals(200, get(base + "/metrics", Optional.of("bearer " + TOKEN)).statusCode());
      assertEquals(
          200, get(base + "/health", Optional.empty()).statusCode(), "probes need no token");
      assertEquals(200, get(base + "/health/readiness", Optional.empty()).statusCode());
    }
  }

  @Test
  void onLoopbackNoTokenIsNeeded() throws Exception {
    try (ApiServer api = ApiServer.start("127.0.0.1", 0, client, root)) {
      assertEquals(200, get(api.url() + "/api/v1/models", Optional.empty()).statusCode());
    }
  }

  private static HttpResponse<String> get(String url, Optional<String> authorization)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
    authorization.ifPresent(a -> b.header("Authorization", a));
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
