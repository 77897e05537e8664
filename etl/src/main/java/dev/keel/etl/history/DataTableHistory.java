package dev.keel.etl.history;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.DataHistory;
import dev.keel.api.v1.DataVersion;
import dev.keel.api.v1.IngestResult;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.SplitLabelCounts;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.SplitCounter;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Reads every version of a data table: when it was committed, what the ingest that wrote it
 * recorded ({@code keel.ingest.*} table properties: mode, source, checksum, skipped records), and
 * the rows it holds per split, per class and per split and class, counted from the data of that
 * version (only the split and label columns are read), and a warning for a class with no rows in
 * the train split. A version whose ingest key equals its predecessor's was not written by an ingest
 * (an identical ingest writes nothing), so its operation reads {@code write}.
 */
public final class DataTableHistory {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);

  private DataTableHistory() {}

  /** With this process's engine ({@link DeltaTables#defaultEngine()}). */
  public static DataHistory describe(String tableUri) {
    return describe(DeltaTables.defaultEngine(), tableUri);
  }

  /**
   * @throws IllegalArgumentException "no Delta table at &lt;uri&gt;" when there is none
   */
  public static DataHistory describe(Engine engine, String tableUri) {
    Snapshot latest =
        DeltaTables.latestSnapshot(engine, tableUri)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no Delta table at " + DeltaTables.displayUri(tableUri)));
    DataHistory.Builder h = DataHistory.newBuilder().setTableUri(DeltaTables.displayUri(tableUri));
    classNames(latest).forEach(h::addClassNames);
    String previousKey = null;
    for (long v = 0; v <= latest.getVersion(); v++) {
      Snapshot s = v == latest.getVersion() ? latest : DeltaTables.snapshotAt(engine, tableUri, v);
      Map<String, String> p = s.getTableProperties();
      String key = p.get(IngestActivitiesImpl.INGEST_KEY);
      boolean byIngest = key != null && !Objects.equals(key, previousKey);
      previousKey = key;
      DataVersion.Builder d =
          DataVersion.newBuilder()
              .setVersion(v)
              .setTimeMillis(s.getTimestamp(engine))
              .setOperation(
                  byIngest ? p.get(IngestActivitiesImpl.INGEST_MODE) : v == 0 ? "create" : "write");
      if (byIngest) {
        d.setSourceFormat(p.getOrDefault(IngestActivitiesImpl.INGEST_FORMAT, ""))
            .setSourceUri(p.getOrDefault(IngestActivitiesImpl.INGEST_SOURCE, ""))
            .setSourceChecksum(p.getOrDefault(IngestActivitiesImpl.INGEST_CHECKSUM, ""))
            .setSkippedRecords(recorded(p).getSkippedRecords())
            .putAllLabelLimits(recorded(p).getLabelLimitsMap());
      }
      if (SplitLabelCounts.countable(s)) {
        // one scan of the split and label columns gives every count
        SplitLabelCounts counts = SplitLabelCounts.of(engine, s);
        d.putAllRowsPerSplit(counts.perSplit())
            .putAllRowsPerLabel(counts.perLabel())
            .putAllRowsPerSplitLabel(counts.proto())
            .addAllWarnings(counts.warnings());
      } else {
        d.putAllRowsPerSplit(SplitCounter.count(engine, s));
        if (SplitLabelCounts.hasClassLabels(s)) {
          List<String> names = classNames(s);
          SplitCounter.countBy(engine, s, "label")
              .forEach(
                  (label, n) -> {
                    int i = Integer.parseInt(label);
                    d.putRowsPerLabel(i >= 0 && i < names.size() ? names.get(i) : label, n);
                  });
        }
      }
      h.addVersions(d);
    }
    return h.build();
  }

  /** A plain-text table: one line per version, then its rows per split and per class. */
  public static String render(DataHistory h) {
    StringBuilder sb = new StringBuilder();
    sb.append("table ").append(h.getTableUri()).append('\n');
    if (h.getClassNamesCount() > 0) {
      sb.append("classes ").append(String.join(", ", h.getClassNamesList())).append('\n');
    }
    // the format column as wide as its widest value (fashion_mnist, image_folder), so the columns
    // after it align
    int formatWidth =
        Math.max(
            "format".length(),
            h.getVersionsList().stream().mapToInt(v -> format(v).length()).max().orElse(0));
    String columns = "%-7s %-19s %-9s %-" + formatWidth + "s %-16s %8s  %s%n";
    sb.append(
        String.format(
            Locale.ROOT,
            columns,
            "version",
            "time (UTC)",
            "operation",
            "format",
            "checksum",
            "skipped",
            "source"));
    for (DataVersion v : h.getVersionsList()) {
      String sum =
          v.getSourceChecksum().isEmpty()
              ? "-"
              : v.getSourceChecksum().substring(0, Math.min(16, v.getSourceChecksum().length()));
      sb.append(
          String.format(
              Locale.ROOT,
              columns,
              v.getVersion(),
              TIME.format(Instant.ofEpochMilli(v.getTimeMillis())),
              v.getOperation(),
              format(v),
              sum,
              v.getSkippedRecords(),
              v.getSourceUri().isEmpty() ? "-" : v.getSourceUri()));
      if (v.getLabelLimitsCount() > 0) {
        sb.append("        label limits:   ")
            .append(counts(v.getLabelLimitsMap()))
            .append(" (train rows kept)\n");
      }
      sb.append("        rows per split: ").append(counts(v.getRowsPerSplitMap())).append('\n');
      if (v.getRowsPerLabelCount() > 0) {
        sb.append("        rows per label: ").append(counts(v.getRowsPerLabelMap())).append('\n');
      }
      new TreeMap<>(v.getRowsPerSplitLabelMap())
          .forEach(
              (split, labels) ->
                  sb.append(
                      String.format(
                          Locale.ROOT,
                          "        %-16s%s%n",
                          "rows in " + split + ":",
                          counts(labels.getRowsPerLabelMap()))));
      v.getWarningsList().forEach(w -> sb.append("        warning: ").append(w).append('\n'));
    }
    return sb.toString();
  }

  private static String format(DataVersion v) {
    return v.getSourceFormat().isEmpty() ? "-" : v.getSourceFormat();
  }

  private static String counts(Map<String, Long> m) {
    StringBuilder sb = new StringBuilder();
    new TreeMap<>(m)
        .forEach((k, n) -> sb.append(sb.isEmpty() ? "" : ", ").append(k).append('=').append(n));
    return sb.toString();
  }

  private static List<String> classNames(Snapshot s) {
    return SplitLabelCounts.classNames(s);
  }

  private static IngestResult recorded(Map<String, String> p) {
    IngestResult.Builder b = IngestResult.newBuilder();
    String json = p.get(IngestActivitiesImpl.INGEST_RESULT);
    if (json != null) {
      try {
        JsonFormat.parser().ignoringUnknownFields().merge(json, b);
      } catch (InvalidProtocolBufferException e) {
        // an unreadable record only loses the skipped count
      }
    }
    return b.build();
  }
}
