package dev.keel.etl;

import dev.keel.tables.Columns;
import dev.keel.tables.TableSchemas;
import io.delta.kernel.types.StructType;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The good records of a source, decoded and ready to commit: label indices into {@code
 * classNames}, splits, and either images ({@code pixels}, {@code height x width}) or feature
 * vectors. Ids are given at commit time (they continue the table's rows on append).
 */
record Decoded(int rows, int[] labels, String[] splits, List<String> classNames,
    byte[] pixels, int height, int width, float[][] features, List<String> featureNames) {

  static Decoded images(int[] labels, String[] splits, List<String> classNames, byte[] pixels, int height, int width) {
    return new Decoded(labels.length, labels, splits, classNames, pixels, height, width, null, List.of());
  }

  static Decoded features(int[] labels, String[] splits, List<String> classNames, float[][] features,
      List<String> featureNames) {
    return new Decoded(labels.length, labels, splits, classNames, null, 0, 0, features, featureNames);
  }

  boolean isImages() {
    return features == null;
  }

  StructType schema() {
    return isImages() ? TableSchemas.LABELED_IMAGES : TableSchemas.LABELED_FEATURES;
  }

  String imageShape() {
    return height + "x" + width;
  }

  /** Table properties describing the data (shape or feature names, class names). */
  Map<String, String> dataProperties() {
    Map<String, String> p = new TreeMap<>();
    if (isImages()) {
      p.put(TableSchemas.IMAGE_SHAPE_PROPERTY, imageShape());
    } else {
      p.put(TableSchemas.FEATURE_NAMES_PROPERTY, String.join(",", featureNames));
    }
    if (!classNames.isEmpty()) {
      p.put(TableSchemas.CLASS_NAMES_PROPERTY, String.join(",", classNames));
    }
    return p;
  }

  /** The same rows with labels renumbered into {@code tableClasses} (an append to a table with other class names). */
  Decoded withClasses(List<String> tableClasses, int[] newLabels) {
    return new Decoded(rows, newLabels, splits, tableClasses, pixels, height, width, features, featureNames);
  }

  Columns columns(long firstId) {
    long[] ids = new long[rows];
    for (int i = 0; i < rows; i++) {
      ids[i] = firstId + i;
    }
    Columns c = Columns.of(rows).add("id", ids).add("label", labels).add("split", splits);
    if (isImages()) {
      return c.addFixedBinary("image", pixels, height * width);
    }
    return c.addFloatArrays("features", features);
  }

  Map<String, Long> rowsPerSplit() {
    Map<String, Long> m = new TreeMap<>();
    for (String s : splits) {
      m.merge(s, 1L, Long::sum);
    }
    return m;
  }

  Map<String, Long> rowsPerLabel() {
    Map<String, Long> m = new TreeMap<>();
    for (int l : labels) {
      m.merge(l < classNames.size() ? classNames.get(l) : Integer.toString(l), 1L, Long::sum);
    }
    return m;
  }
}
