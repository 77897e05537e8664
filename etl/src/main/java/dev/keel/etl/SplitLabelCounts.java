package dev.keel.etl;

import dev.keel.api.config.Splits;
import dev.keel.api.v1.LabelRows;
import dev.keel.tables.SplitCounter;
import dev.keel.tables.TableSchemas;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.IntegerType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Rows per split and class name, of an ingest's records or of a table version, and what they warn
 * about: a class with rows but none in the {@code train} split (e.g. present only in the test
 * split) is one no model trained on the table can learn, and it would otherwise show up only as a
 * class scored 0 after training.
 */
public final class SplitLabelCounts {
  /** split -> class name -> rows. */
  private final Map<String, Map<String, Long>> counts;

  private SplitLabelCounts(Map<String, Map<String, Long>> counts) {
    this.counts = counts;
  }

  /** The decoded records of an ingest, labels named by their class names. */
  static SplitLabelCounts of(Decoded data) {
    Map<String, Map<String, Long>> m = new TreeMap<>();
    for (int i = 0; i < data.rows(); i++) {
      m.computeIfAbsent(data.splits()[i], k -> new TreeMap<>())
          .merge(name(data.labels()[i], data.classNames()), 1L, Long::sum);
    }
    return new SplitLabelCounts(m);
  }

  /**
   * The rows of a labeled table version (only its {@code split} and {@code label} columns are
   * read), labels named by the version's {@code keel.label.classes}.
   */
  public static SplitLabelCounts of(Engine engine, Snapshot snapshot) {
    List<String> names = classNames(snapshot);
    Map<String, Map<String, Long>> m = new TreeMap<>();
    SplitCounter.countBy(engine, snapshot, SplitCounter.SPLIT, "label")
        .forEach(
            (split, labels) ->
                labels.forEach(
                    (label, n) ->
                        m.computeIfAbsent(split, k -> new TreeMap<>())
                            .merge(
                                label.isEmpty() ? label : name(Integer.parseInt(label), names),
                                n,
                                Long::sum)));
    return new SplitLabelCounts(m);
  }

  /**
   * Whether {@link #of(Engine, Snapshot)} can count the version: it has a split and a class label
   * column (a regression's float or a multilabel's array label names no class to count by).
   */
  public static boolean countable(Snapshot snapshot) {
    return snapshot.getSchema().indexOf(SplitCounter.SPLIT) >= 0 && hasClassLabels(snapshot);
  }

  /** Whether the version's {@code label} column holds class numbers. */
  public static boolean hasClassLabels(Snapshot snapshot) {
    int label = snapshot.getSchema().indexOf("label");
    return label >= 0 && snapshot.getSchema().at(label).getDataType() instanceof IntegerType;
  }

  /**
   * The class names of a version ({@code keel.label.classes}), label {@code i} the {@code i}-th;
   * empty when none.
   */
  public static List<String> classNames(Snapshot s) {
    String names = s.getTableProperties().get(TableSchemas.CLASS_NAMES_PROPERTY);
    return names == null || names.isEmpty() ? List.of() : List.of(names.split(",", -1));
  }

  private static String name(int label, List<String> names) {
    return label >= 0 && label < names.size() ? names.get(label) : Integer.toString(label);
  }

  /**
   * These rows and {@code other}'s together (a table's rows before an append, plus the append's).
   */
  SplitLabelCounts plus(SplitLabelCounts other) {
    Map<String, Map<String, Long>> m = new TreeMap<>();
    for (SplitLabelCounts c : List.of(this, other)) {
      c.counts.forEach(
          (split, labels) ->
              labels.forEach(
                  (label, n) ->
                      m.computeIfAbsent(split, k -> new TreeMap<>()).merge(label, n, Long::sum)));
    }
    return new SplitLabelCounts(m);
  }

  public long rows() {
    return counts.values().stream()
        .flatMap(l -> l.values().stream())
        .mapToLong(Long::longValue)
        .sum();
  }

  public Map<String, Long> perSplit() {
    Map<String, Long> m = new TreeMap<>();
    counts.forEach(
        (split, labels) -> m.put(split, labels.values().stream().mapToLong(Long::longValue).sum()));
    return m;
  }

  public Map<String, Long> perLabel() {
    Map<String, Long> m = new TreeMap<>();
    counts.values().forEach(labels -> labels.forEach((label, n) -> m.merge(label, n, Long::sum)));
    return m;
  }

  /** For {@code rows_per_split_label}. */
  public Map<String, LabelRows> proto() {
    Map<String, LabelRows> m = new TreeMap<>();
    counts.forEach(
        (split, labels) -> m.put(split, LabelRows.newBuilder().putAllRowsPerLabel(labels).build()));
    return m;
  }

  /**
   * One line per class that has rows but none in {@code train}, e.g. {@code class 'Sandal' has no
   * rows in the train split (12 in test): no model trained on this table can learn it}; one line
   * when there are no train rows at all.
   */
  public List<String> warnings() {
    List<String> out = new ArrayList<>();
    Map<String, Long> train = counts.getOrDefault(Splits.TRAIN, Map.of());
    if (train.isEmpty()) {
      if (rows() > 0) {
        out.add("no rows in the train split: no model can be trained on this table");
      }
      return out;
    }
    Set<String> classes = new TreeSet<>(perLabel().keySet());
    for (String c : classes) {
      if (train.getOrDefault(c, 0L) > 0) {
        continue;
      }
      List<String> elsewhere = new ArrayList<>();
      counts.forEach(
          (split, labels) -> {
            long n = labels.getOrDefault(c, 0L);
            if (!split.equals(Splits.TRAIN) && n > 0) {
              elsewhere.add(String.format(Locale.ROOT, "%,d in %s", n, split));
            }
          });
      out.add(
          "class '"
              + c
              + "' has no rows in the train split ("
              + String.join(", ", elsewhere)
              + "): no model trained on this table can learn it");
    }
    return out;
  }
}
