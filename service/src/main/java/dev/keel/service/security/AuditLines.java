package dev.keel.service.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.tables.audit.AuditTable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** How the audit table's entries read in the API's JSON and under {@code describe}. */
public final class AuditLines {
  private AuditLines() {}

  public static Map<String, Object> json(AuditTable.Entry e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("time", e.time().toString());
    m.put("who", e.who());
    m.put("role", e.role());
    m.put("action", e.action());
    if (e.target() != null) {
      m.put("target", e.target());
    }
    m.put("status", e.status());
    return m;
  }

  /**
   * {@code activity:} and a line per entry ({@code <time> alice (editor) POST /api/v1/… 202});
   * nothing when none.
   */
  public static String text(List<AuditTable.Entry> entries) {
    return text(new ObjectMapper().valueToTree(entries.stream().map(AuditLines::json).toList()));
  }

  /** As {@link #text(List)}, for entries as {@link #json} wrote them (the experiment view's). */
  public static String text(JsonNode entries) {
    if (entries.isEmpty()) {
      return "";
    }
    StringBuilder out =
        new StringBuilder("activity (through the API):").append(System.lineSeparator());
    for (JsonNode e : entries) {
      out.append(
          String.format(
              Locale.ROOT,
              "  %s  %s (%s)  %s  %d%n",
              e.path("time").asText(),
              e.path("who").asText(),
              e.path("role").asText(),
              e.path("action").asText(),
              e.path("status").asInt()));
    }
    return out.toString();
  }
}
