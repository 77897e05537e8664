package dev.keel.etl;

import dev.keel.api.config.Splits;
import dev.keel.tables.Columns;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.tables.dataset.LabeledImages;
import io.delta.kernel.types.StructType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;

/**
 * The good records of a source, decoded and ready to commit: label indices into {@code classNames},
 * splits, and either images ({@code pixels}, {@code channels x height x width}) or feature vectors.
 * Ids are given at commit time (they continue the table's rows on append).
 */
record Decoded(
    int rows,
    int[] labels,
    String[] splits,
    List<String> classNames,
    byte[] pixels,
    int channels,
    int height,
    int width,
    float[][] features,
    List<String> featureNames,
    float[] values,
    float[][] targets) {

  static Decoded images(
      int[] labels,
      String[] splits,
      List<String> classNames,
      byte[] pixels,
      int channels,
      int height,
      int width) {
    return new Decoded(
        labels.length,
        labels,
        splits,
        classNames,
        pixels,
        channels,
        height,
        width,
        null,
        List.of(),
        null,
        null);
  }

  static Decoded features(
      int[] labels,
      String[] splits,
      List<String> classNames,
      float[][] features,
      List<String> featureNames) {
    return new Decoded(
        labels.length,
        labels,
        splits,
        classNames,
        null,
        0,
        0,
        0,
        features,
        featureNames,
        null,
        null);
  }

  /** Feature vectors labelled with values (regression): a float label column, no classes. */
  static Decoded valued(
      float[] values, String[] splits, float[][] features, List<String> featureNames) {
    return new Decoded(
        values.length,
        new int[values.length],
        splits,
        List.of(),
        null,
        0,
        0,
        0,
        features,
        featureNames,
        values,
        null);
  }

  /**
   * Feature vectors with several yes/no labels (multilabel): a float array label of one target in
   * [0, 1] per label; {@code labelNames} become the table's class names.
   */
  static Decoded multilabel(
      float[][] targets,
      List<String> labelNames,
      String[] splits,
      float[][] features,
      List<String> featureNames) {
    return new Decoded(
        targets.length,
        new int[targets.length],
        splits,
        labelNames,
        null,
        0,
        0,
        0,
        features,
        featureNames,
        null,
        targets);
  }

  boolean isMultilabel() {
    return targets != null;
  }

  /** What the label is: {@code classification}, {@code regression} or {@code multilabel}. */
  String task() {
    return isMultilabel() ? "multilabel" : isValued() ? "regression" : "classification";
  }

  boolean isValued() {
    return values != null;
  }

  boolean isImages() {
    return features == null;
  }

  StructType schema() {
    if (isImages()) {
      return TableSchemas.LABELED_IMAGES;
    }
    if (isMultilabel()) {
      return TableSchemas.MULTILABEL_FEATURES;
    }
    return isValued() ? TableSchemas.VALUED_FEATURES : TableSchemas.LABELED_FEATURES;
  }

  String imageShape() {
    return LabeledImages.shape(channels, height, width);
  }

  /** The per-channel statistics of the training split's images. */
  ImageNormalization trainingNormalization() {
    return ImageNormalization.of(
        pixels, channels, height * width, i -> splits[i].equals(Splits.TRAIN));
  }

  /** Table properties describing the data (shape or feature names, class names). */
  Map<String, String> dataProperties() {
    Map<String, String> p = new TreeMap<>();
    if (isImages()) {
      p.put(TableSchemas.IMAGE_SHAPE_PROPERTY, imageShape());
    } else {
      p.put(TableSchemas.FEATURE_NAMES_PROPERTY, String.join(",", featureNames));
    }
    if (isValued() || isMultilabel()) {
      p.put(TableSchemas.TASK_PROPERTY, task());
    }
    if (!classNames.isEmpty()) {
      p.put(TableSchemas.CLASS_NAMES_PROPERTY, String.join(",", classNames));
    }
    return p;
  }

  /**
   * The same rows with labels renumbered into {@code tableClasses} (an append to a table with other
   * class names).
   */
  Decoded withClasses(List<String> tableClasses, int[] newLabels) {
    return new Decoded(
        rows,
        newLabels,
        splits,
        tableClasses,
        pixels,
        channels,
        height,
        width,
        features,
        featureNames,
        values,
        targets);
  }

  /** Only the rows {@code keep} (ascending row indices), in their order. */
  Decoded select(int[] keep) {
    int n = keep.length;
    int[] lab = new int[n];
    String[] spl = new String[n];
    float[] val = values == null ? null : new float[n];
    float[][] tgt = targets == null ? null : new float[n][];
    for (int k = 0; k < n; k++) {
      lab[k] = labels[keep[k]];
      spl[k] = splits[keep[k]];
      if (val != null) {
        val[k] = values[keep[k]];
      }
      if (tgt != null) {
        tgt[k] = targets[keep[k]];
      }
    }
    if (isImages()) {
      int size = channels * height * width;
      byte[] px = new byte[n * size];
      for (int k = 0; k < n; k++) {
        System.arraycopy(pixels, keep[k] * size, px, k * size, size);
      }
      return new Decoded(
          n, lab, spl, classNames, px, channels, height, width, null, featureNames, null, null);
    }
    float[][] f = new float[n][];
    for (int k = 0; k < n; k++) {
      f[k] = features[keep[k]];
    }
    return new Decoded(n, lab, spl, classNames, null, 0, 0, 0, f, featureNames, val, tgt);
  }

  /**
   * Rows per data file at most. Batch inference scores a file's rows in partitions and a partition
   * decodes its file from the first row (a Parquet reader cannot start inside a row group), so
   * files of one partition's size make every partition decode only its own rows.
   */
  static final int FILE_ROWS = 10_000;

  /**
   * Groups of rows per split, of at most {@link #FILE_ROWS} rows each (each becomes its own Parquet
   * file, so a reader of one split skips the other's files by their statistics); row {@code i} has
   * id {@code firstId + i}.
   */
  List<Columns> groups(long firstId) {
    List<Columns> out = new ArrayList<>();
    for (String split : new TreeSet<>(Arrays.asList(splits))) {
      int[] rowsOfSplit = IntStream.range(0, rows).filter(i -> splits[i].equals(split)).toArray();
      for (int from = 0; from < rowsOfSplit.length; from += FILE_ROWS) {
        out.add(
            group(
                firstId,
                split,
                Arrays.copyOfRange(
                    rowsOfSplit, from, Math.min(rowsOfSplit.length, from + FILE_ROWS))));
      }
    }
    return out;
  }

  private Columns group(long firstId, String split, int[] rowsOf) {
    int n = rowsOf.length;
    long[] ids = new long[n];
    int[] lab = new int[n];
    String[] spl = new String[n];
    for (int k = 0; k < n; k++) {
      ids[k] = firstId + rowsOf[k];
      lab[k] = labels[rowsOf[k]];
      spl[k] = split;
    }
    Columns c = Columns.of(n).add("id", ids);
    if (values != null) {
      float[] val = new float[n];
      for (int k = 0; k < n; k++) {
        val[k] = values[rowsOf[k]];
      }
      c.add("label", val);
    } else if (targets != null) {
      float[][] tgt = new float[n][];
      for (int k = 0; k < n; k++) {
        tgt[k] = targets[rowsOf[k]];
      }
      c.add("label", tgt);
    } else {
      c.add("label", lab);
    }
    c.add("split", spl);
    if (isImages()) {
      int size = channels * height * width;
      byte[] px = new byte[n * size];
      for (int k = 0; k < n; k++) {
        System.arraycopy(pixels, rowsOf[k] * size, px, k * size, size);
      }
      return c.addFixedBinary("image", px, size);
    }
    float[][] f = new float[n][];
    for (int k = 0; k < n; k++) {
      f[k] = features[rowsOf[k]];
    }
    return c.add("features", f);
  }

  Map<String, Long> rowsPerSplit() {
    Map<String, Long> m = new TreeMap<>();
    for (String s : splits) {
      m.merge(s, 1L, Long::sum);
    }
    return m;
  }

  /**
   * Rows per class name (for multilabel: rows whose target of the label is at least 0.5); none for
   * values, which are no classes.
   */
  Map<String, Long> rowsPerLabel() {
    Map<String, Long> m = new TreeMap<>();
    if (isValued()) {
      return m;
    }
    if (isMultilabel()) {
      for (int j = 0; j < classNames.size(); j++) {
        long positives = 0;
        for (float[] t : targets) {
          positives += t[j] >= 0.5f ? 1 : 0;
        }
        m.put(classNames.get(j), positives);
      }
      return m;
    }
    for (int l : labels) {
      m.merge(l < classNames.size() ? classNames.get(l) : Integer.toString(l), 1L, Long::sum);
    }
    return m;
  }
}
