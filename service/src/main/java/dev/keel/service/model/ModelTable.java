package dev.keel.service.model;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.DriftRecord;
import dev.keel.api.v1.DriftReport;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ModelVersions;
import dev.keel.api.v1.StageChange;
import dev.keel.service.listing.Filter;
import dev.keel.tables.catalog.Paging;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The registry as text: one line per version for {@code list}, the whole lineage for {@code
 * describe}.
 */
public final class ModelTable {
  private ModelTable() {}

  public static String list(List<ModelVersion> versions) {
    if (versions.isEmpty()) {
      return "no registered models\n";
    }
    // each column as wide as its widest value: names, tables and experiment ids have no length
    // limit
    String format =
        "%-"
            + width("NAME", versions, ModelVersion::getName)
            + "s %7s  %-9s  %-"
            + width("DATA", versions, ModelTable::data)
            + "s  %-"
            + width("SOURCE", versions, ModelTable::source)
            + "s  %s%n";
    StringBuilder out =
        new StringBuilder(
            String.format(
                Locale.ROOT, format, "NAME", "VERSION", "STAGE", "DATA", "SOURCE", "METRICS"));
    for (ModelVersion v : versions) {
      out.append(
          String.format(
              Locale.ROOT,
              format,
              v.getName(),
              v.getVersion(),
              v.getStage(),
              data(v),
              source(v),
              metrics(v.getMetricsMap(), 3)));
    }
    return out.toString();
  }

  public static String describe(ModelVersion v) {
    StringBuilder out = new StringBuilder();
    line(out, "model", v.getName() + " v" + v.getVersion());
    line(out, "stage", v.getStage().name());
    line(
        out,
        "created",
        Instant.ofEpochMilli(v.getCreatedMillis())
            + " by "
            + v.getRegisteredBy()
            + (v.getSubmittedBy().isEmpty() ? "" : ", submitted by " + v.getSubmittedBy()));
    line(
        out,
        "checkpoint",
        v.getCheckpoint().getUri()
            + " ("
            + v.getCheckpoint().getUuid()
            + ", "
            + v.getCheckpoint().getBatches()
            + " batches)");
    line(out, "trained as", v.getSourceCheckpointUri());
    line(out, "data", data(v));
    line(out, "experiment", source(v));
    if (v.hasWarmStartedFrom()) {
      line(
          out,
          "warm-started",
          "from " + v.getWarmStartedFrom().getName() + " v" + v.getWarmStartedFrom().getVersion());
    }
    if (!v.getModel().getTorchscriptFile().isEmpty()) {
      line(
          out,
          "torchscript",
          v.getModel().getTorchscriptFile()
              + " (sha256 "
              + v.getModel().getTorchscriptSha256()
              + ")");
    } else {
      line(
          out,
          "model class",
          v.getConfig().getModel().getName().isEmpty()
              ? v.getConfig().getModel().getClass_()
              : v.getConfig().getModel().getName());
    }
    line(out, "code", v.getCodeVersion());
    line(
        out,
        "hyperparameters",
        new TreeMap<>(v.getHparamsMap())
            .entrySet().stream()
                .map(e -> e.getKey() + "=" + value(e.getValue()))
                .collect(Collectors.joining(", ")));
    line(out, "metrics", metrics(v.getMetricsMap(), Integer.MAX_VALUE));
    if (v.getComparisonsCount() > 0) {
      out.append("champion/challenger:\n");
      for (Comparison c : v.getComparisonsList()) {
        out.append(
            String.format(
                Locale.ROOT,
                "  %s  %s %.4f vs %s on %s v%d %s: %s (%s)%n",
                Instant.ofEpochMilli(c.getTimeMillis()),
                c.getMetric(),
                c.getChallengerValue(),
                c.hasChampion()
                    ? String.format(
                        Locale.ROOT,
                        "champion v%d %.4f",
                        c.getChampion().getVersion(),
                        c.getChampionValue())
                    : "no champion",
                tableName(c.getData().getUri()),
                c.getData().getVersion(),
                c.getSplit(),
                c.getDecision().name().replace('_', ' '),
                c.getDecidedBy()));
      }
    }
    out.append("history:\n");
    for (StageChange c : v.getHistoryList()) {
      out.append(
          String.format(
              Locale.ROOT,
              "  %s  %-9s  %s%s%n",
              Instant.ofEpochMilli(c.getTimeMillis()),
              c.getStage(),
              c.getReason(),
              c.getWho().isEmpty() ? "" : " (by " + c.getWho() + ")"));
    }
    return out.toString();
  }

  /**
   * The drift reports of a version's inference runs, one line each, oldest first: what moved, by
   * how much against the threshold, and the schedule a drift triggered. Empty when no run had a
   * drift block.
   */
  public static String drift(List<DriftRecord> records) {
    if (records.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder("drift:\n");
    for (DriftRecord r : records) {
      DriftReport d = r.getReport();
      String action =
          !d.getTriggeredSchedule().isEmpty()
              ? ", triggered schedule " + d.getTriggeredSchedule()
              : !d.getTriggerError().isEmpty() ? ", trigger failed: " + d.getTriggerError() : "";
      out.append(
          String.format(
              Locale.ROOT,
              "  %s  %s v%d %s  %s %.4f %s %.4f: %s%s  (run %s)%n",
              Instant.ofEpochMilli(r.getTimeMillis()),
              tableName(r.getData().getUri()),
              r.getData().getVersion(),
              r.getSplit(),
              d.getMeasure(),
              d.getScore(),
              d.getDrifted() ? ">" : "<=",
              d.getThreshold(),
              d.getDrifted() ? "DRIFTED" : "ok",
              action,
              r.getRunId()));
    }
    return out.toString();
  }

  /** Drift records as one JSON array (REST). */
  public static String json(List<DriftRecord> records) {
    return records.stream().map(ModelTable::json).collect(Collectors.joining(",\n", "[", "]"));
  }

  /** One page of registered versions, and how many matched in all. */
  public record Page(List<ModelVersion> versions, int total, int offset, int limit) {}

  /**
   * The versions in {@code stage} (candidate, champion, archived; any case), or all, paged.
   *
   * @throws IllegalArgumentException for an unknown stage or bad paging, naming the parameter
   */
  public static Page page(
      List<ModelVersion> versions, Optional<String> stage, int offset, int limit) {
    Filter.oneOf("stage", stage, Filter.states(ModelStage.getDescriptor()));
    List<ModelVersion> matching =
        versions.stream()
            .filter(v -> stage.map(s -> s.equalsIgnoreCase(v.getStage().name())).orElse(true))
            .toList();
    return new Page(Paging.slice(matching, offset, limit), matching.size(), offset, limit);
  }

  /**
   * {@code {"versions": [...], "total", "offset", "limit"}}: GET /api/v1/models and keel model list
   * --json.
   */
  public static String json(Page page) {
    String versions = json(ModelVersions.newBuilder().addAllVersions(page.versions()).build());
    // the printer leaves out an empty list; the page always names it
    String body =
        versions.equals("{\n}")
            ? "\"versions\": []"
            : versions.substring(versions.indexOf('{') + 1, versions.lastIndexOf('}')).trim();
    return "{\n  "
        + body
        + ",\n  \"total\": "
        + page.total()
        + ",\n  \"offset\": "
        + page.offset()
        + ",\n  \"limit\": "
        + page.limit()
        + "\n}";
  }

  public static String json(Message m) {
    try {
      return JsonFormat.printer().preservingProtoFieldNames().print(m);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void line(StringBuilder out, String key, String value) {
    out.append(String.format(Locale.ROOT, "%-16s %s%n", key + ":", value));
  }

  private static int width(
      String header, List<ModelVersion> versions, Function<ModelVersion, String> column) {
    return Math.max(
        header.length(), versions.stream().mapToInt(v -> column.apply(v).length()).max().orElse(0));
  }

  private static String data(ModelVersion v) {
    return tableName(v.getData().getUri()) + " v" + v.getData().getVersion();
  }

  private static String tableName(String uri) {
    String name = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    return name.substring(name.lastIndexOf('/') + 1);
  }

  private static String source(ModelVersion v) {
    return v.getExperimentId().isEmpty() ? "-" : v.getExperimentId() + " " + v.getTrialId();
  }

  private static String metrics(Map<String, Double> metrics, int max) {
    return new TreeMap<>(metrics)
        .entrySet().stream()
            .filter(e -> !e.getKey().equals("length"))
            .limit(max)
            .map(e -> String.format(Locale.ROOT, "%s=%.4f", e.getKey(), e.getValue()))
            .collect(Collectors.joining(" "));
  }

  private static String value(Value v) {
    return switch (v.getKindCase()) {
      case NUMBER_VALUE ->
          v.getNumberValue() == Math.rint(v.getNumberValue()) && Math.abs(v.getNumberValue()) < 1e15
              ? Long.toString((long) v.getNumberValue())
              : Double.toString(v.getNumberValue());
      case STRING_VALUE -> v.getStringValue();
      case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
      default -> v.toString().strip();
    };
  }
}
