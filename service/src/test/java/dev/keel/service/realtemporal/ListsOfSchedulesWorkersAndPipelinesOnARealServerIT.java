package dev.keel.service.realtemporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.activities.TaskQueues;
import dev.keel.service.api.ApiServer;
import dev.keel.service.visibility.KeelWorkers;
import dev.keel.storage.StorageRoot;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The list endpoints that need a real Temporal server, against the CLI's dev server behind {@code
 * keel dev}: {@code GET /api/v1/schedules} (and {@code keel schedule list}) shows a paused schedule
 * with its note; {@code GET /api/v1/workers} shows the dev stack's worker polling every Keel task
 * queue and one training slot in pool cpu; {@code GET /api/v1/pipelines} lists through the
 * visibility query; a submission to a pool with too few workers is warned about.
 */
class ListsOfSchedulesWorkersAndPipelinesOnARealServerIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void schedulesWorkersAndPipelinesAreListed() throws Exception {
    String id = "it-listed-" + UUID.randomUUID().toString().substring(0, 8);
    assertEquals(
        0,
        RealTemporal.keel(
            "schedule",
            "create",
            id,
            "--cron",
            "0 4 * * *",
            "--paused",
            "--note",
            "listed by a test",
            "--batches",
            "20"));
    try (ApiServer api =
        ApiServer.start(
            "127.0.0.1",
            0,
            RealTemporal.client(),
            StorageRoot.of(RealTemporal.stack().storage().toString()))) {
      JsonNode schedules = get(api, "/api/v1/schedules");
      JsonNode listed = null;
      for (JsonNode s : schedules.get("schedules")) {
        if (s.get("schedule_id").asText().equals(id)) {
          listed = s;
        }
      }
      assertTrue(listed != null, schedules.toString());
      assertTrue(listed.get("paused").asBoolean(), listed.toString());
      assertEquals("listed by a test", listed.get("note").asText());
      assertEquals("Pipeline", listed.get("workflow_type").asText());
      assertTrue(listed.get("next_action_times").size() > 0, listed.toString());

      JsonNode workers = get(api, "/api/v1/workers?pools=cpu");
      List<String> queues = new ArrayList<>();
      workers
          .get("workers")
          .forEach(w -> w.get("task_queues").forEach(q -> queues.add(q.asText())));
      for (String q :
          List.of(TaskQueues.CONTROL, TaskQueues.ETL, TaskQueues.INFER, TaskQueues.train("cpu"))) {
        assertTrue(queues.contains(q), q + " polled by a listed worker: " + workers);
      }
      assertEquals(1, workers.get("pools").get("cpu").get("slots").asInt(), workers.toString());

      JsonNode pipelines = get(api, "/api/v1/pipelines?limit=1000");
      assertTrue(
          pipelines.get("total").asInt() >= 0 && pipelines.get("pipelines").isArray(),
          pipelines.toString());
      pipelines
          .get("pipelines")
          .forEach(p -> assertTrue(p.get("pipeline_id").asText().length() > 0));
    } finally {
      RealTemporal.keel("schedule", "delete", id);
    }
  }

  @Test
  void submissionIsWarnedWhenTooFewWorkersPollThePool() {
    RealTemporal.stack();
    assertEquals(
        Optional.of(
            "no worker polls keel-train-nowhere: its trials wait for slots until one does"
                + " (start one with keel worker --roles TRAIN --pool nowhere)"),
        KeelWorkers.slotWarning(RealTemporal.client(), "nowhere", 1));
    assertEquals(
        Optional.of(
            "1 worker polls keel-train-cpu, but a trial needs 2 slots at once: its trials"
                + " wait for slots until enough do (start one with keel worker --roles TRAIN --pool cpu)"),
        KeelWorkers.slotWarning(RealTemporal.client(), "cpu", 2));
    assertEquals(Optional.empty(), KeelWorkers.slotWarning(RealTemporal.client(), "cpu", 1));
  }

  private static JsonNode get(ApiServer api, String path) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(api.url() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    return JSON.readTree(r.body());
  }
}
