package dev.keel.service.data;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.etl.history.DataTableList;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A page of {@link DataTableList} as {@code keel data list} prints it and {@code GET /api/v1/data}
 * returns it.
 */
public final class DataTableListing {
  private static final ObjectMapper JSON = new ObjectMapper();

  private DataTableListing() {}

  /**
   * {@code {"tables": [{"name", "uri", "latest_version", "updated"}], "total", "offset", "limit"}}.
   */
  public static String json(DataTableList.Page page) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put(
        "tables",
        page.tables().stream()
            .map(
                t -> {
                  Map<String, Object> row = new LinkedHashMap<>();
                  row.put("name", t.name());
                  row.put("uri", t.uri());
                  row.put("latest_version", t.latestVersion());
                  row.put("updated", t.updated().toString());
                  return row;
                })
            .toList());
    out.put("total", page.total());
    out.put("offset", page.offset());
    out.put("limit", page.limit());
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Aligned columns, by name. */
  public static String table(DataTableList.Page page) {
    if (page.total() == 0) {
      return "no data tables under this storage root\n";
    }
    int width =
        Math.max(
            "TABLE".length(),
            page.tables().stream().mapToInt(t -> t.name().length()).max().orElse(0));
    String format = "%-" + width + "s  %7s  %-20s  %s%n";
    StringBuilder out =
        new StringBuilder(
            String.format(Locale.ROOT, format, "TABLE", "VERSION", "UPDATED (UTC)", "URI"));
    for (DataTableList.Table t : page.tables()) {
      out.append(
          String.format(
              Locale.ROOT,
              format,
              t.name(),
              t.latestVersion(),
              t.updated().toString().replace('T', ' ').substring(0, 19),
              t.uri()));
    }
    return out.toString();
  }
}
