package dev.keel.etl.testing;

import io.delta.standalone.DeltaLog;
import io.delta.standalone.Snapshot;
import io.delta.standalone.data.CloseableIterator;
import io.delta.standalone.data.RowRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;

/** Rows of a labeled table read back with Delta Standalone, an independent Delta reader. */
public final class TableRows {
  /** One row; {@code features} null for image tables, {@code image} null for feature tables. */
  public record Row(long id, int label, String split, float[] features, byte[] image) {}

  private TableRows() {}

  /** Rows of {@code version} (latest when negative), sorted by id. */
  public static List<Row> read(String tablePath, long version) throws Exception {
    DeltaLog log = DeltaLog.forTable(new Configuration(), tablePath);
    Snapshot s = version < 0 ? log.update() : log.getSnapshotForVersionAsOf(version);
    boolean features =
        s.getMetadata().getSchema().getFieldNames().length > 3
            && List.of(s.getMetadata().getSchema().getFieldNames()).contains("features");
    List<Row> out = new ArrayList<>();
    try (CloseableIterator<RowRecord> it = s.open()) {
      while (it.hasNext()) {
        RowRecord r = it.next();
        float[] f = null;
        if (features) {
          List<Float> l = r.getList("features");
          f = new float[l.size()];
          for (int i = 0; i < f.length; i++) {
            f[i] = l.get(i);
          }
        }
        out.add(
            new Row(
                r.getLong("id"),
                r.getInt("label"),
                r.getString("split"),
                f,
                features ? null : r.getBinary("image")));
      }
    }
    out.sort(Comparator.comparingLong(Row::id));
    return out;
  }

  public static Map<String, Long> perSplit(List<Row> rows) {
    Map<String, Long> m = new TreeMap<>();
    rows.forEach(r -> m.merge(r.split(), 1L, Long::sum));
    return m;
  }

  public static Map<Integer, Long> perLabel(List<Row> rows) {
    Map<Integer, Long> m = new TreeMap<>();
    rows.forEach(r -> m.merge(r.label(), 1L, Long::sum));
    return m;
  }

  public static Map<String, String> properties(String tablePath, long version) {
    DeltaLog log = DeltaLog.forTable(new Configuration(), tablePath);
    return (version < 0 ? log.update() : log.getSnapshotForVersionAsOf(version))
        .getMetadata()
        .getConfiguration();
  }
}
