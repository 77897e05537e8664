package dev.keel.service.api;

import dev.keel.service.security.ApiAudit;
import dev.keel.service.security.AuditLines;
import dev.keel.tables.audit.AuditTable;
import dev.keel.tables.catalog.Paging;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.QueryValue;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** REST: who did what through the API ({@code _keel/audit}), for admins. */
@Controller("/api/v1/audit")
public class AuditController {
  private final ApiAudit audit;

  @Inject
  public AuditController(ApiAudit audit) {
    this.audit = audit;
  }

  /**
   * The entries, newest first: {@code target} keeps those about one experiment, pipeline or model
   * version.
   */
  @Get(produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> list(
      @Nullable @QueryValue String target,
      @QueryValue(defaultValue = "0") int offset,
      @QueryValue(defaultValue = "50") int limit) {
    try {
      Paging.check(offset, limit);
    } catch (IllegalArgumentException e) {
      return HttpResponse.badRequest(Map.of("message", e.getMessage()));
    }
    List<AuditTable.Entry> all = new ArrayList<>(audit.table().read(Optional.ofNullable(target)));
    Collections.reverse(all);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("entries", Paging.slice(all, offset, limit).stream().map(AuditLines::json).toList());
    out.put("total", all.size());
    out.put("offset", offset);
    out.put("limit", limit);
    return HttpResponse.ok(out);
  }
}
