package dev.keel.tables.dataset;

import java.util.Arrays;
import java.util.List;

/**
 * Feature vectors with labels, packed for training: example {@code i} is {@code features[i*width ..
 * (i+1)*width)}, in the order of {@code featureNames}.
 *
 * @param featureNames the table's feature columns ({@code keel.features.names}); {@code width} of
 *     them, or empty
 * @param classNames the table's class names ({@code keel.label.classes}); may be empty
 * @param values a regression table's labels, one float per row, or a multilabel table's targets,
 *     {@code valueWidth} per row; null for classes, whose {@code labels} are then the class indices
 *     (a regression or multilabel table's {@code labels} are all 0)
 * @param valueWidth floats of {@code values} per row: 1 for regression, the number of labels for
 *     multilabel (whose names are then {@code classNames})
 */
public record LabeledFeatures(
    long[] ids,
    int[] labels,
    float[] features,
    int width,
    List<String> featureNames,
    List<String> classNames,
    float[] values,
    int valueWidth)
    implements LabeledExamples {

  /** Labelled with classes. */
  public LabeledFeatures(
      long[] ids,
      int[] labels,
      float[] features,
      int width,
      List<String> featureNames,
      List<String> classNames) {
    this(ids, labels, features, width, featureNames, classNames, null, 1);
  }

  /** Labelled with values (regression). */
  public static LabeledFeatures valued(
      long[] ids, float[] values, float[] features, int width, List<String> featureNames) {
    return new LabeledFeatures(
        ids, new int[values.length], features, width, featureNames, List.of(), values, 1);
  }

  /**
   * Labelled with several yes/no targets (multilabel): {@code targets} holds {@code
   * labelNames.size()} floats per row.
   */
  public static LabeledFeatures multilabel(
      long[] ids,
      float[] targets,
      List<String> labelNames,
      float[] features,
      int width,
      List<String> featureNames) {
    return new LabeledFeatures(
        ids,
        new int[ids.length],
        features,
        width,
        featureNames,
        labelNames,
        targets,
        labelNames.size());
  }

  public LabeledFeatures {
    if (valueWidth < 1
        || (values != null && values.length != (long) labels.length * valueWidth)
        || (values == null && valueWidth != 1)) {
      throw new IllegalArgumentException(
          "inconsistent dataset: "
              + labels.length
              + " rows, "
              + (values == null ? 0 : values.length)
              + " values, "
              + valueWidth
              + " per row");
    }
    if (width < 1) {
      throw new IllegalArgumentException(
          "feature vectors need at least one feature, got width " + width);
    }
    if (ids.length != labels.length || features.length != (long) labels.length * width) {
      throw new IllegalArgumentException(
          "inconsistent dataset: "
              + ids.length
              + " ids, "
              + labels.length
              + " labels, "
              + features.length
              + " feature values for vectors of "
              + width);
    }
    if (!featureNames.isEmpty() && featureNames.size() != width) {
      throw new IllegalArgumentException(
          featureNames.size()
              + " feature names "
              + featureNames
              + " for vectors of "
              + width
              + " features");
    }
    featureNames = List.copyOf(featureNames);
    classNames = List.copyOf(classNames);
  }

  @Override
  public long[] exampleShape() {
    return new long[] {width};
  }

  @Override
  public int exampleSize() {
    return width;
  }

  @Override
  public float[] floats(int[] rows) {
    float[] out = new float[rows.length * width];
    for (int i = 0; i < rows.length; i++) {
      System.arraycopy(features, rows[i] * width, out, i * width, width);
    }
    return out;
  }

  @Override
  public LabeledFeatures slice(int from, int to) {
    return new LabeledFeatures(
        Arrays.copyOfRange(ids, from, to),
        Arrays.copyOfRange(labels, from, to),
        Arrays.copyOfRange(features, from * width, to * width),
        width,
        featureNames,
        classNames,
        values == null ? null : Arrays.copyOfRange(values, from * valueWidth, to * valueWidth),
        valueWidth);
  }

  @Override
  public LabeledFeatures select(int[] rows) {
    long[] selectedIds = new long[rows.length];
    int[] selectedLabels = new int[rows.length];
    float[] selectedValues = values == null ? null : new float[rows.length * valueWidth];
    for (int i = 0; i < rows.length; i++) {
      selectedIds[i] = ids[rows[i]];
      selectedLabels[i] = labels[rows[i]];
      if (values != null) {
        System.arraycopy(values, rows[i] * valueWidth, selectedValues, i * valueWidth, valueWidth);
      }
    }
    return new LabeledFeatures(
        selectedIds,
        selectedLabels,
        floats(rows),
        width,
        featureNames,
        classNames,
        selectedValues,
        valueWidth);
  }

  @Override
  public boolean multilabel() {
    return values != null && !classNames.isEmpty();
  }

  @Override
  public String describe() {
    return "vectors of " + width + " features";
  }

  /**
   * The names in a comma-separated table property ({@code keel.features.names}, {@code
   * keel.label.classes}); empty when unset.
   */
  public static List<String> names(String property) {
    if (property == null || property.isBlank()) {
      return List.of();
    }
    return Arrays.stream(property.split(",", -1)).map(String::strip).toList();
  }
}
