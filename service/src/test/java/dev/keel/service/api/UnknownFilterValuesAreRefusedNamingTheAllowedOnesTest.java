package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.cli.KeelRun;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A filter value that no item can have ({@code state=bogus}) would list nothing, which reads as
 * "there are none": every list's filter refuses it instead, naming the values it takes, with a 400
 * from the REST API and exit 2 from the CLI, before it reads anything.
 */
class UnknownFilterValuesAreRefusedNamingTheAllowedOnesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String EXPERIMENT_STATES = "[ACTIVE, COMPLETED, ERRORED, KILLED, PAUSED]";
  private static LoopbackStack stack;
  private static ApiServer api;

  @BeforeAll
  static void start() throws Exception {
    stack = LoopbackStack.start("filters");
    api = ApiServer.start("127.0.0.1", 0, stack.client(), stack.root());
  }

  @AfterAll
  static void stop() {
    api.close();
    stack.close();
  }

  @Test
  void theRestApiAnswers400() throws Exception {
    Map<String, String> refused =
        Map.of(
            "/api/v1/experiments?state=bogus",
            "state: 'bogus' is not one of " + EXPERIMENT_STATES,
            "/api/v1/experiments/experiment-x/trials?state=bogus",
            "state: 'bogus' is not one of [ACTIVE, COMPLETED, ERRORED, INVALID_HP, KILLED, PAUSED]",
            "/api/v1/experiments/experiment-x/checkpoints?state=kept",
            "state: 'kept' is not one of [DELETED, SAVED]",
            "/api/v1/models?stage=production",
            "stage: 'production' is not one of [archived, candidate, champion]",
            "/api/v1/pipelines?status=sleeping",
            "status: 'sleeping' is not one of [canceled, completed, continued_as_new,"
                + " failed, running, terminated, timed_out]");
    for (Map.Entry<String, String> e : refused.entrySet()) {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(api.url() + e.getKey())).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(400, r.statusCode(), e.getKey() + ": " + r.body());
      assertEquals(e.getValue(), JSON.readTree(r.body()).get("message").asText(), e.getKey());
    }
    // any case of a known value is a filter, not an error
    HttpResponse<String> known =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(api.url() + "/api/v1/experiments?state=completed"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, known.statusCode(), known.body());
  }

  @Test
  void theCliExitsTwo() {
    assertRefused(
        "keel: state: 'bogus' is not one of " + EXPERIMENT_STATES,
        "experiment",
        "list",
        "--state",
        "bogus");
    assertRefused(
        "keel: state: 'kept' is not one of [DELETED, SAVED]",
        "checkpoint",
        "list",
        "experiment-x",
        "--state",
        "kept");
    assertRefused(
        "keel: stage: 'production' is not one of [archived, candidate, champion]",
        "model",
        "list",
        "--stage",
        "production");
    assertEquals(0, keel("experiment", "list", "--state", "completed").code());
  }

  private static void assertRefused(String message, String... args) {
    KeelRun.Result r = keel(args);
    assertEquals(2, r.code(), r.toString());
    assertEquals(message + "\n", r.err());
  }

  private static KeelRun.Result keel(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(
        List.of("--temporal", stack.temporalAddress(), "--storage", stack.root().toString()));
    return KeelRun.keel(all.toArray(String[]::new));
  }
}
