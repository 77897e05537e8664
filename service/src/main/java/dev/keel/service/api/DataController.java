package dev.keel.service.api;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.config.ConfigProblem;
import dev.keel.etl.history.DataTableHistory;
import dev.keel.etl.history.DataTableList;
import dev.keel.service.data.DataTableListing;
import dev.keel.service.security.DataRoots;
import dev.keel.storage.StorageRoot;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Optional;

/** REST: the version history of a data table, as {@code keel data describe} prints it. */
@Controller("/api/v1/data")
public class DataController {
  private final StorageRoot storage;
  private final DataRoots roots;

  @Inject
  public DataController(StorageRoot storage, DataRoots roots) {
    this.storage = storage;
    this.roots = roots;
  }

  /**
   * The storage root's data tables by name with their latest version: {@code offset} and {@code
   * limit} page.
   */
  @Get(produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> list(
      @QueryValue(defaultValue = "0") int offset, @QueryValue(defaultValue = "50") int limit) {
    try {
      return HttpResponse.ok(DataTableListing.json(DataTableList.page(storage, offset, limit)));
    } catch (IllegalArgumentException e) {
      return HttpResponse.badRequest(Map.of("message", e.getMessage()));
    }
  }

  /**
   * 200 with every version (protobuf JSON of DataHistory), 400 without a table, 404 when there is
   * none.
   */
  @Get(value = "/describe", produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> describe(@QueryValue(defaultValue = "") String table)
      throws InvalidProtocolBufferException {
    if (table.isBlank()) {
      return HttpResponse.badRequest(
          Map.of("message", "query parameter 'table' is required (a table name or URI)"));
    }
    Optional<ConfigProblem> outside = roots.table("table", table);
    if (outside.isPresent()) {
      return HttpResponse.badRequest(Map.of("message", outside.get().toString()));
    }
    try {
      return HttpResponse.ok(
          JsonFormat.printer()
              .preservingProtoFieldNames()
              .print(DataTableHistory.describe(storage.table(table))));
    } catch (IllegalArgumentException e) {
      return HttpResponse.notFound(Map.of("message", e.getMessage()));
    }
  }
}
