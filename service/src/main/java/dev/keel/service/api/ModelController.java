package dev.keel.service.api;

import dev.keel.api.config.EnumNames;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.ModelVersions;
import dev.keel.api.v1.PromoteModelRequest;
import dev.keel.service.model.ModelTable;
import dev.keel.service.security.Caller;
import dev.keel.tables.drift.DriftTable;
import dev.keel.tables.registry.ModelRegistryTable;
import dev.keel.tables.registry.UnknownModelException;
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
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * REST for the model registry: list, describe, promote, drift reports (the same operations as
 * {@code keel model}).
 */
@Controller("/api/v1/models")
public class ModelController {
  private final ModelRegistryTable registry;
  private final DriftTable drift;

  @Inject
  public ModelController(ModelRegistryTable registry, DriftTable drift) {
    this.registry = registry;
    this.drift = drift;
  }

  /**
   * Every registered version: {@code stage} filters, {@code offset} and {@code limit} page (400
   * naming a bad one).
   */
  @Get(produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> list(
      @Nullable @QueryValue String stage,
      @QueryValue(defaultValue = "0") int offset,
      @QueryValue(defaultValue = "50") int limit) {
    try {
      return HttpResponse.ok(
          ModelTable.json(
              ModelTable.page(registry.list(), Optional.ofNullable(stage), offset, limit)));
    } catch (IllegalArgumentException e) {
      return HttpResponse.badRequest(Map.of("message", e.getMessage()));
    }
  }

  @Get(value = "/{name}", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> versions(@PathVariable String name) {
    return answer(
        () -> {
          var versions = registry.list(name);
          if (versions.isEmpty()) {
            registry.describe(name, 1); // throws, naming the models there are
          }
          return ModelTable.json(ModelVersions.newBuilder().addAllVersions(versions).build());
        });
  }

  @Get(value = "/{name}/{version}", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> describe(@PathVariable String name, @PathVariable long version) {
    return answer(() -> ModelTable.json(registry.describe(name, version)));
  }

  /**
   * The drift reports of the version's inference runs ({@code _keel/drift}), oldest first; 404 for
   * an unknown version.
   */
  @Get(value = "/{name}/{version}/drift", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> drift(@PathVariable String name, @PathVariable long version) {
    return answer(
        () -> {
          registry.describe(name, version);
          return ModelTable.json(drift.reports(name + "/" + version));
        });
  }

  /**
   * Body {@code {"stage": "champion", "reason": "..."}}; 404 for a model that does not exist, 400
   * for a bad stage.
   */
  @Post(
      value = "/{name}/{version}/promote",
      consumes = MediaType.APPLICATION_JSON,
      produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> promote(
      @PathVariable String name,
      @PathVariable long version,
      @Body Map<String, String> body,
      @Nullable @RequestAttribute(ApiTokenFilter.CALLER) Caller caller) {
    String stage = body.getOrDefault("stage", "");
    if (!EnumNames.names(ModelStage.getDescriptor()).contains(stage)) {
      return HttpResponse.badRequest(
          error(
              "stage: '"
                  + stage
                  + "' is not one of "
                  + EnumNames.expected(ModelStage.getDescriptor())));
    }
    return answer(
        () ->
            ModelTable.json(
                registry.promote(
                    PromoteModelRequest.newBuilder()
                        .setModel(ModelVersionRef.newBuilder().setName(name).setVersion(version))
                        .setStage(ModelStage.valueOf(stage))
                        .setReason(body.getOrDefault("reason", ""))
                        .setWho(caller == null ? "" : caller.name())
                        .build())));
  }

  private static HttpResponse<?> answer(Supplier<String> json) {
    try {
      return HttpResponse.ok(json.get());
    } catch (UnknownModelException e) {
      return HttpResponse.notFound(error(e.getMessage()));
    }
  }

  private static Map<String, String> error(String message) {
    return Map.of("message", message);
  }
}
