package dev.keel.service.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.search.Searchers;
import dev.keel.search.sim.SimulationStoppedException;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.experiment.ExperimentListing;
import dev.keel.service.experiment.ExperimentView;
import dev.keel.service.experiment.TrialView;
import dev.keel.service.security.Caller;
import dev.keel.service.security.DataRoots;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.catalog.Paging;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
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
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/** REST: create experiments from YAML/JSON configs, read their state, pause/activate/kill them. */
@Controller("/api/v1/experiments")
public class ExperimentController {
  private static final Duration EVENT_PERIOD = Duration.ofSeconds(1);

  private final WorkflowClient client;
  private final StorageRoot storage;
  private final DataRoots roots;
  private final ExperimentView views;
  private final RequestBudget budget;

  @Inject
  public ExperimentController(
      WorkflowClient client, StorageRoot storage, DataRoots roots, RequestBudget budget) {
    this.client = client;
    this.storage = storage;
    this.roots = roots;
    this.views = new ExperimentView(client, storage);
    this.budget = budget;
  }

  /**
   * The storage root's experiments from the catalog, newest first: {@code state} and {@code name}
   * (a part of it) filter, {@code offset} and {@code limit} (1..1000, default 50) page; 400 for bad
   * paging or an unknown state.
   */
  @Get(produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> list(
      @Nullable @QueryValue String state,
      @Nullable @QueryValue String name,
      @QueryValue(defaultValue = "0") int offset,
      @QueryValue(defaultValue = "50") int limit) {
    try {
      // written by Jackson here, not by Micronaut, which would leave an empty list out
      return HttpResponse.ok(
          ExperimentListing.json(
              ExperimentListing.page(
                  storage, Optional.ofNullable(state), Optional.ofNullable(name), offset, limit)));
    } catch (IllegalArgumentException e) {
      return HttpResponse.badRequest(Map.of("message", e.getMessage()));
    }
  }

  /** 202 with the experiment id, or 400 listing every problem with its field path. */
  @Post(
      consumes = {
        MediaType.APPLICATION_JSON,
        "application/yaml",
        MediaType.APPLICATION_YAML,
        MediaType.TEXT_PLAIN
      },
      produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, Object>> create(
      @Body String body, @Nullable @RequestAttribute(ApiTokenFilter.CALLER) Caller caller) {
    try {
      ExperimentConfig config = ExperimentConfigLoaders.load(body).config();
      List<ConfigProblem> outside = roots.problems(config, "");
      if (!outside.isEmpty()) {
        throw new ConfigValidationException("experiment config", outside);
      }
      String id =
          ExperimentLauncher.start(
              client,
              ExperimentRequest.newBuilder()
                  .setConfig(config)
                  .setSubmittedBy(caller == null ? "" : caller.name())
                  .build());
      return HttpResponse.accepted()
          .body(
              Map.of(
                  "experiment_id",
                  id,
                  "links",
                  List.of("/api/v1/experiments/" + id),
                  "warnings",
                  ExperimentLauncher.warnings(client, config)));
    } catch (ConfigValidationException e) {
      return HttpResponse.badRequest(ValidationErrors.body(e));
    }
  }

  /**
   * The searcher's plan for a config, without starting anything; 400 for a config over Keel's
   * limits, 503 if the plan takes longer than the request budget (the limits keep it to about a
   * second).
   */
  @Post(
      value = "/preview",
      consumes = {
        MediaType.APPLICATION_JSON,
        "application/yaml",
        MediaType.APPLICATION_YAML,
        MediaType.TEXT_PLAIN
      },
      produces = MediaType.TEXT_PLAIN)
  public HttpResponse<String> preview(@Body String body) {
    RequestBudget.Deadline deadline = budget.start();
    try {
      return HttpResponse.ok(
          Searchers.preview(ExperimentConfigLoaders.load(body), deadline::passed).toTable());
    } catch (ConfigValidationException e) {
      return HttpResponse.badRequest(e.getMessage());
    } catch (SimulationStoppedException e) {
      return HttpResponse.<String>status(HttpStatus.SERVICE_UNAVAILABLE)
          .body(budget.exceeded("the preview"));
    }
  }

  @Get(value = "/{id}", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> state(@PathVariable String id) throws InvalidProtocolBufferException {
    try {
      return HttpResponse.ok(
          JsonFormat.printer()
              .preservingProtoFieldNames()
              .print(ExperimentLauncher.state(client, id)));
    } catch (WorkflowNotFoundException e) {
      return HttpResponse.notFound(Map.of("message", "no experiment " + id));
    }
  }

  /**
   * Everything the dashboard shows of the experiment (state, trials, learning curves, rungs,
   * checkpoints), also for one Temporal no longer has but the catalog does.
   */
  @Get(value = "/{id}/view", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> view(@PathVariable String id) {
    return views
        .read(id)
        .<HttpResponse<?>>map(v -> HttpResponse.ok(v.json()))
        .orElseGet(() -> unknown(id));
  }

  /**
   * The experiment's trials, by id: {@code state} filters (400 for an unknown one), {@code offset}
   * and {@code limit} page.
   */
  @Get(value = "/{id}/trials", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> trials(
      @PathVariable String id,
      @Nullable @QueryValue String state,
      @QueryValue(defaultValue = "0") int offset,
      @QueryValue(defaultValue = "50") int limit) {
    return page(id, "trials", state, offset, limit);
  }

  /**
   * One trial: as in the view, every validation with all its metrics, its checkpoints, its log
   * lines and the experiment it belongs to; 404 for an unknown experiment or trial.
   */
  @Get(value = "/{id}/trials/{trial}", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> trial(@PathVariable String id, @PathVariable long trial) {
    Optional<ExperimentView.Document> view = views.read(id);
    if (view.isEmpty()) {
      return unknown(id);
    }
    return TrialView.json(view.get(), trial)
        .<HttpResponse<?>>map(HttpResponse::ok)
        .orElseGet(
            () ->
                HttpResponse.notFound(
                    Map.of("message", "experiment " + id + " has no trial " + trial)));
  }

  /**
   * The experiment's checkpoints (SAVED or DELETED by GC), by trial and batches; filters and paging
   * as for trials.
   */
  @Get(value = "/{id}/checkpoints", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> checkpoints(
      @PathVariable String id,
      @Nullable @QueryValue String state,
      @QueryValue(defaultValue = "0") int offset,
      @QueryValue(defaultValue = "50") int limit) {
    return page(id, "checkpoints", state, offset, limit);
  }

  /**
   * Server-Sent Events: an {@code experiment} event carrying the {@link #view} document at once and
   * again whenever it changes (looked at every second), until the experiment has ended.
   */
  @Get(value = "/{id}/events", produces = MediaType.TEXT_EVENT_STREAM)
  public HttpResponse<?> events(@PathVariable String id) {
    if (views.read(id).isEmpty()) {
      return unknown(id);
    }
    return HttpResponse.ok(ExperimentEvents.of(views.follow(id, EVENT_PERIOD)))
        .contentType(MediaType.TEXT_EVENT_STREAM_TYPE);
  }

  private HttpResponse<?> page(
      String id, String list, @Nullable String state, int offset, int limit) {
    try {
      Paging.check(offset, limit);
      ExperimentView.checkFilter(list, state);
      return views
          .read(id)
          .<HttpResponse<?>>map(v -> HttpResponse.ok(v.page(list, state, offset, limit)))
          .orElseGet(() -> unknown(id));
    } catch (IllegalArgumentException e) {
      return HttpResponse.badRequest(Map.of("message", e.getMessage()));
    }
  }

  private static HttpResponse<?> unknown(String id) {
    return HttpResponse.notFound(
        Map.of("message", "no experiment " + id + " in Temporal or the catalog"));
  }

  @Post(value = "/{id}/pause", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, Object>> pause(@PathVariable String id) {
    return signal(id, "paused", ExperimentWorkflow::pause, requested(id, "pause"));
  }

  @Post(value = "/{id}/activate", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, Object>> activate(@PathVariable String id) {
    return signal(id, "activated", ExperimentWorkflow::activate, requested(id, "activate"));
  }

  @Post(value = "/{id}/kill", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, Object>> kill(@PathVariable String id) {
    return signal(id, "killed", ExperimentWorkflow::kill, requested(id, "kill"));
  }

  @Post(
      value = "/{id}/trials/{trial}/kill",
      consumes = MediaType.ALL,
      produces = MediaType.APPLICATION_JSON)
  public HttpResponse<Map<String, Object>> killTrial(
      @PathVariable String id, @PathVariable long trial) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("experiment_id", id);
    body.put("trial", trial);
    body.put("requested", "kill");
    return signal(id, "asked to kill a trial", e -> e.killTrial(trial), body);
  }

  private static Map<String, Object> requested(String id, String what) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("experiment_id", id);
    body.put("requested", what);
    return body;
  }

  /**
   * 202 once the running experiment has the signal; 404 when there is no such experiment, 409 when
   * it has ended.
   */
  private HttpResponse<Map<String, Object>> signal(
      String id, String done, Consumer<ExperimentWorkflow> send, Map<String, Object> body) {
    try {
      ExperimentLauncher.signal(client, id, done, send);
      return HttpResponse.accepted().body(body);
    } catch (ExperimentLauncher.NotRunning e) {
      return HttpResponse.<Map<String, Object>>status(
              e.ended() ? HttpStatus.CONFLICT : HttpStatus.NOT_FOUND)
          .body(Map.of("message", e.getMessage()));
    }
  }
}
