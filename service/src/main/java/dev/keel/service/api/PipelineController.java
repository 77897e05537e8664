package dev.keel.service.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.pipeline.PipelineLauncher;
import dev.keel.service.pipeline.PipelineList;
import dev.keel.service.security.Caller;
import dev.keel.service.security.DataRoots;
import dev.keel.tables.registry.ModelRegistryTable;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.annotation.RequestAttribute;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** REST: start a pipeline from JSON or YAML, read its progress. */
@Controller("/api/v1")
public class PipelineController {
  private final WorkflowClient client;
  private final ModelRegistryTable registry;
  private final DataRoots roots;

  @Inject
  public PipelineController(WorkflowClient client, ModelRegistryTable registry, DataRoots roots) {
    this.client = client;
    this.registry = registry;
    this.roots = roots;
  }

  @Get(value = "/health", produces = MediaType.APPLICATION_JSON)
  public Map<String, String> health() {
    return Map.of("status", "ok", "namespace", client.getOptions().getNamespace());
  }

  /** 202 with the pipeline id, or 400 listing every problem with its field path. */
  @Post(
      value = "/pipelines",
      consumes = {
        MediaType.APPLICATION_JSON,
        "application/yaml",
        MediaType.APPLICATION_YAML,
        MediaType.TEXT_PLAIN
      },
      produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, Object>> start(
      @Body String body, @Nullable @RequestAttribute(ApiTokenFilter.CALLER) Caller caller) {
    PipelineRequest request;
    try {
      var loader = ExperimentConfigLoaders.pipelineLoader();
      request = body.stripLeading().startsWith("{") ? loader.fromJson(body) : loader.fromYaml(body);
    } catch (ConfigValidationException e) {
      return HttpResponse.badRequest(ValidationErrors.body(e));
    }
    request = request.toBuilder().setSubmittedBy(caller == null ? "" : caller.name()).build();
    List<ConfigProblem> outside = roots.problems(request);
    if (!outside.isEmpty()) { // before anything reads what the request names
      return HttpResponse.badRequest(
          ValidationErrors.body(new ConfigValidationException("pipeline request", outside)));
    }
    String id;
    try {
      PipelineLauncher.checkWarmStart(
          request, registry, "pipeline request"); // the stack's registry
      id = PipelineLauncher.start(client, request); // checks the data source exists first
    } catch (ConfigValidationException e) {
      return HttpResponse.badRequest(ValidationErrors.body(e));
    }
    return HttpResponse.accepted()
        .body(
            Map.of(
                "pipeline_id",
                id,
                "links",
                List.of("/api/v1/pipelines/" + id),
                "warnings",
                ExperimentLauncher.warnings(client, request.getExperiment())));
  }

  /**
   * The pipelines Temporal knows, newest first: {@code status} filters, {@code offset} and {@code
   * limit} page.
   */
  @Get(value = "/pipelines", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> list(
      @Nullable @QueryValue String status,
      @QueryValue(defaultValue = "0") int offset,
      @QueryValue(defaultValue = "50") int limit) {
    try {
      return HttpResponse.ok(
          PipelineList.json(PipelineList.page(client, Optional.ofNullable(status), offset, limit)));
    } catch (IllegalArgumentException e) {
      return HttpResponse.badRequest(Map.of("message", e.getMessage()));
    }
  }

  @Get(value = "/pipelines/{id}", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> progress(@PathVariable String id) {
    try {
      return HttpResponse.ok(json(PipelineLauncher.progress(client, id)));
    } catch (WorkflowNotFoundException e) {
      return HttpResponse.notFound("{\"message\": \"no pipeline " + id + "\"}");
    }
  }

  private static String json(Message m) {
    try {
      return JsonFormat.printer().preservingProtoFieldNames().print(m);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }
}
