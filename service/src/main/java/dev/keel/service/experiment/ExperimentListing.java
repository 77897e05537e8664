package dev.keel.service.experiment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.api.v1.ExperimentState;
import dev.keel.service.listing.Filter;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.catalog.ExperimentList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A page of {@link ExperimentList} as {@code keel experiment list} prints it and as the REST API
 * returns it.
 */
public final class ExperimentListing {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The states {@code --state} and {@code ?state=} may name. */
  public static final Set<String> STATES = Filter.states(ExperimentState.State.getDescriptor());

  private ExperimentListing() {}

  /**
   * A page of the storage root's experiments: {@code state} (one of {@link #STATES}, any case) and
   * {@code name} (a part of it) filter.
   *
   * @throws IllegalArgumentException for an unknown state or bad paging, naming the parameter
   */
  public static ExperimentList.Page page(
      StorageRoot storage, Optional<String> state, Optional<String> name, int offset, int limit) {
    return new ExperimentList(storage)
        .page(Filter.oneOf("state", state, STATES), name, offset, limit);
  }

  /**
   * {@code {"experiments": [...], "total": N, "offset": N, "limit": N}}, field names as the
   * catalog's columns.
   */
  private static Map<String, Object> body(ExperimentList.Page page) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("experiments", page.experiments().stream().map(ExperimentListing::row).toList());
    out.put("total", page.total());
    out.put("offset", page.offset());
    out.put("limit", page.limit());
    return out;
  }

  /**
   * {@link #body} as JSON: what {@code GET /api/v1/experiments} and {@code keel experiment list
   * --json} print.
   */
  public static String json(ExperimentList.Page page) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(body(page));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Aligned columns, newest first, and a last line saying which of how many are shown. */
  public static String table(ExperimentList.Page page) {
    List<ExperimentList.Summary> rows = page.experiments();
    int idWidth =
        Math.max(
            "EXPERIMENT".length(),
            rows.stream().mapToInt(r -> r.experimentId().length()).max().orElse(0));
    int nameWidth =
        Math.max(
            "NAME".length(), rows.stream().mapToInt(r -> text(r.name()).length()).max().orElse(0));
    String format = "%-" + idWidth + "s  %-" + nameWidth + "s  %-9s  %-20s  %-22s  %s%n";
    StringBuilder out =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                format,
                "EXPERIMENT",
                "NAME",
                "STATE",
                "UPDATED (UTC)",
                "BEST",
                "DATA"));
    for (ExperimentList.Summary r : rows) {
      out.append(
          String.format(
              Locale.ROOT,
              format,
              r.experimentId(),
              text(r.name()),
              text(r.state()),
              r.time().toString().replace('T', ' ').substring(0, 19),
              r.bestMetric() == null
                  ? ""
                  : r.metric() + " " + String.format(Locale.ROOT, "%.4f", r.bestMetric()),
              r.dataTable() == null
                  ? ""
                  : r.dataTable() + (r.dataVersion() == null ? "" : " v" + r.dataVersion())));
    }
    int shownTo = page.offset() + rows.size();
    out.append(
        rows.isEmpty()
            ? (page.total() == 0
                ? "no experiments in the catalog\n"
                : "none from " + (page.offset() + 1) + " of " + page.total() + "\n")
            : String.format(
                Locale.ROOT,
                "%d-%d of %d%s%n",
                page.offset() + 1,
                shownTo,
                page.total(),
                shownTo < page.total() ? " (next: --offset " + shownTo + ")" : ""));
    return out.toString();
  }

  /** The row's fields; a column the catalog holds NULL in is left out. */
  private static Map<String, Object> row(ExperimentList.Summary s) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("experiment_id", s.experimentId());
    putIfPresent(out, "name", s.name());
    putIfPresent(out, "state", s.state());
    putIfPresent(out, "data_table", s.dataTable());
    putIfPresent(out, "data_version", s.dataVersion());
    out.put("time", s.time().toString());
    putIfPresent(out, "metric", s.searcherMetric().orElse(null));
    putIfPresent(out, "best_metric", s.bestMetric());
    return out;
  }

  private static void putIfPresent(Map<String, Object> out, String key, Object value) {
    if (value != null) {
      out.put(key, value);
    }
  }

  private static String text(String s) {
    return s == null ? "" : s;
  }
}
