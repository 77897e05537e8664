package dev.keel.service.api;

import dev.keel.service.pool.PoolProvisioners;
import dev.keel.service.pool.PoolTable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.temporal.client.WorkflowClient;
import jakarta.inject.Inject;
import java.util.Map;

/**
 * REST: the pool provisioners, their instances (desired, running, busy, idle) and last decisions.
 */
@Controller("/api/v1/pools")
public class PoolController {
  private final WorkflowClient client;

  @Inject
  public PoolController(WorkflowClient client) {
    this.client = client;
  }

  /** Every running provisioner's status, by pool name. */
  @Get(produces = MediaType.APPLICATION_JSON)
  public HttpResponse<String> list() {
    return HttpResponse.ok(PoolTable.json(PoolProvisioners.list(client)));
  }

  /** One pool's status; 404 when no provisioner of that name is known. */
  @Get(value = "/{name}", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> status(@PathVariable String name) {
    return PoolProvisioners.status(client, name)
        .<HttpResponse<?>>map(s -> HttpResponse.ok(PoolTable.json(s)))
        .orElseGet(
            () -> HttpResponse.notFound(Map.of("message", PoolProvisioners.unknown(client, name))));
  }
}
