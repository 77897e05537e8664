package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The Java test server behind {@code keel dev --temporal embedded} has no Schedule API and cannot
 * describe task queues: the schedule and worker lists answer 501 with a message saying what to use
 * instead, not a stack trace or an empty list that would look like "none".
 */
class SchedulesAndWorkersOnTheTestServerAnswer501NamingWhatToUseTest {
  @Test
  void schedulesAndWorkersNameTheBackendTheyNeed() throws Exception {
    try (LoopbackStack stack = LoopbackStack.start("no-schedules");
        ApiServer api = ApiServer.start("127.0.0.1", 0, stack.client(), stack.root())) {
      for (String path : new String[] {"/api/v1/schedules", "/api/v1/workers"}) {
        HttpResponse<String> r =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create(api.url() + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        assertEquals(501, r.statusCode(), path + ": " + r.body());
        assertTrue(r.body().contains("use keel dev --temporal cli or a cluster"), r.body());
      }
    }
  }
}
