package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One request cannot take the server down: a preview of a billion trials is a 400 naming the limit
 * (it ran for minutes), a 9 MB config a 413 before it is parsed, deeply nested YAML a 400 in one
 * line, and a preview past the request budget a 503 naming it. No answer carries a Java class name
 * or a stack frame, and nothing starts.
 */
class RequestsOverKeelsLimitsAreRefusedNamingTheLimitTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** A Java class name (dev.keel.Foo, java.lang.IllegalStateException) or a stack frame. */
  private static final Pattern INTERNALS =
      Pattern.compile("\\b[a-z]+\\.[a-z.]+\\.[A-Z]\\w*|\\bat [\\w.$]+\\(|Exception\\b");

  private static final String CONFIG =
      """
      name: limits
      data: {table: fashion_mnist}
      hyperparameters:
        lr: {type: log, minval: -4, maxval: -2, base: 10}
      searcher: {name: adaptive_asha, metric: validation_loss, smaller_is_better: true, max_trials: 16,
                 max_length: {batches: 640}}
      """;
  private static final String BILLION = CONFIG.replace("max_trials: 16", "max_trials: 1000000000");
  private static LoopbackStack stack;
  private static ApiServer api;

  @BeforeAll
  static void start() throws Exception {
    stack = LoopbackStack.start("limits");
    api = ApiServer.start("127.0.0.1", 0, stack.client(), stack.root());
  }

  @AfterAll
  static void stop() {
    api.close();
    stack.close();
  }

  private static HttpResponse<String> post(ApiServer server, String path, String body)
      throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(server.url() + path))
                .header("Content-Type", "application/yaml")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertFalse(INTERNALS.matcher(r.body()).find(), "internals in the answer: " + r.body());
    return r;
  }

  @Test
  void aBillionTrialPreviewIsA400NamingTheLimit() throws Exception {
    HttpResponse<String> preview = post(api, "/api/v1/experiments/preview", BILLION);
    assertEquals(400, preview.statusCode(), preview.body());
    assertEquals(
        "invalid experiment config (1 problem):\n"
            + "  searcher.max_trials: must be <= 100000 (Keel's limit), got 1000000000",
        preview.body());

    HttpResponse<String> create = post(api, "/api/v1/experiments", BILLION);
    assertEquals(400, create.statusCode(), create.body());
    JsonNode error = JSON.readTree(create.body()).get("errors").get(0);
    assertEquals("searcher.max_trials", error.get("field").asText());
    assertEquals("must be <= 100000 (Keel's limit), got 1000000000", error.get("message").asText());
    assertEquals(
        0,
        JSON.readTree(
                HTTP.send(
                        HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/experiments"))
                            .build(),
                        HttpResponse.BodyHandlers.ofString())
                    .body())
            .get("experiments")
            .size(),
        "nothing started");
  }

  @Test
  void aNineMegabyteConfigIsA413BeforeItIsParsed() throws Exception {
    String huge = CONFIG + "# " + "x".repeat(9_000_000) + "\n";
    for (String path :
        List.of("/api/v1/experiments/preview", "/api/v1/experiments", "/api/v1/pipelines")) {
      HttpResponse<String> r = post(api, path, huge);
      assertEquals(413, r.statusCode(), path + ": " + r.body());
      assertEquals(
          "the request body is larger than 1 MiB (1048576 bytes), Keel's limit for a config",
          JSON.readTree(r.body()).get("message").asText(),
          path);
    }
  }

  @Test
  void deeplyNestedYamlIsRefusedInOneLine() throws Exception {
    String nested =
        CONFIG.replace(
            "lr: {type: log",
            "opt: {type: categorical, vals: "
                + "[".repeat(500)
                + "]".repeat(500)
                + "}\n  lr: {type: log");
    HttpResponse<String> preview = post(api, "/api/v1/experiments/preview", nested);
    assertEquals(400, preview.statusCode(), preview.body());
    assertEquals(
        "invalid experiment config (1 problem):\n"
            + "  <root>: nested deeper than 32 levels at line 4 (Keel's limit for a config)",
        preview.body());
    HttpResponse<String> create = post(api, "/api/v1/experiments", nested);
    assertEquals(400, create.statusCode(), create.body());
    assertEquals(
        "nested deeper than 32 levels at line 4 (Keel's limit for a config)",
        JSON.readTree(create.body()).get("errors").get(0).get("message").asText());
  }

  @Test
  void aPreviewPastTheRequestBudgetIsA503NamingIt() throws Exception {
    System.setProperty("keel.api.request-budget", "0s");
    ApiServer noBudget;
    try {
      noBudget = ApiServer.start("127.0.0.1", 0, stack.client(), stack.root());
    } finally {
      System.clearProperty("keel.api.request-budget");
    }
    try (noBudget) {
      HttpResponse<String> r = post(noBudget, "/api/v1/experiments/preview", CONFIG);
      assertEquals(503, r.statusCode(), r.body());
      assertEquals(
          "the preview needed more than 0 s, the most one request may compute (keel.api.request-budget):"
              + " lower searcher.max_trials",
          r.body());
    }
    HttpResponse<String> withBudget = post(api, "/api/v1/experiments/preview", CONFIG);
    assertEquals(200, withBudget.statusCode(), withBudget.body());
    assertTrue(withBudget.body().contains("Total: 16 trials"), withBudget.body());
  }
}
