package dev.keel.service.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.search.Searchers;
import dev.keel.service.experiment.ExperimentLauncher;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** REST: create experiments from YAML/JSON configs, read their state, pause/activate/kill them. */
@Controller("/api/v1/experiments")
public class ExperimentController {
  private final WorkflowClient client;

  @Inject
  public ExperimentController(WorkflowClient client) {
    this.client = client;
  }

  /** 202 with the experiment id, or 400 listing every problem with its field path. */
  @Post(consumes = {MediaType.APPLICATION_JSON, "application/yaml", MediaType.APPLICATION_YAML, MediaType.TEXT_PLAIN},
      produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, Object>> create(@Body String body) {
    try {
      ExperimentConfig config = ExperimentConfigLoaders.load(body).config();
      String id = ExperimentLauncher.start(client, ExperimentRequest.newBuilder().setConfig(config).build());
      return HttpResponse.accepted().body(Map.of("experiment_id", id, "links", List.of("/api/v1/experiments/" + id)));
    } catch (ConfigValidationException e) {
      return HttpResponse.badRequest(ValidationErrors.body(e));
    }
  }

  /** The searcher's plan for a config, without starting anything. */
  @Post(value = "/preview", consumes = {MediaType.APPLICATION_JSON, "application/yaml", MediaType.APPLICATION_YAML,
      MediaType.TEXT_PLAIN}, produces = MediaType.TEXT_PLAIN)
  public HttpResponse<String> preview(@Body String body) {
    try {
      return HttpResponse.ok(Searchers.preview(ExperimentConfigLoaders.load(body)).toTable());
    } catch (ConfigValidationException e) {
      return HttpResponse.badRequest(e.getMessage());
    }
  }

  @Get(value = "/{id}", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> state(@PathVariable String id) throws InvalidProtocolBufferException {
    try {
      return HttpResponse.ok(JsonFormat.printer().preservingProtoFieldNames().print(ExperimentLauncher.state(client, id)));
    } catch (WorkflowNotFoundException e) {
      return HttpResponse.notFound("{\"message\": \"no experiment " + id + "\"}");
    }
  }

  @Post(value = "/{id}/pause", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, String>> pause(@PathVariable String id) {
    ExperimentLauncher.stub(client, id).pause();
    return HttpResponse.accepted().body(Map.of("experiment_id", id, "requested", "pause"));
  }

  @Post(value = "/{id}/activate", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, String>> activate(@PathVariable String id) {
    ExperimentLauncher.stub(client, id).activate();
    return HttpResponse.accepted().body(Map.of("experiment_id", id, "requested", "activate"));
  }

  @Post(value = "/{id}/kill", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, String>> kill(@PathVariable String id) {
    ExperimentLauncher.stub(client, id).kill();
    return HttpResponse.accepted().body(Map.of("experiment_id", id, "requested", "kill"));
  }

  @Post(value = "/{id}/trials/{trial}/kill", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, Object>> killTrial(@PathVariable String id, @PathVariable long trial) {
    ExperimentLauncher.stub(client, id).killTrial(trial);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("experiment_id", id);
    body.put("trial", trial);
    body.put("requested", "kill");
    return HttpResponse.accepted().body(body);
  }
}
