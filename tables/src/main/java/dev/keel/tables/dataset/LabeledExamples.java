package dev.keel.tables.dataset;

import java.util.List;

/**
 * One split of a labeled table in memory, whatever one example is: an image ({@link LabeledImages})
 * or a vector of features ({@link LabeledFeatures}). Training, validation and scoring see only this
 * view: ids, labels, the shape of one example, and the examples of given rows as floats, so the
 * trainer does not care which kind of table it reads.
 */
public sealed interface LabeledExamples permits LabeledImages, LabeledFeatures {

  long[] ids();

  int[] labels();

  /**
   * A regression table's labels, a float per row, or a multilabel table's targets, {@link
   * #valueWidth()} per row (the {@link #labels()} of both are all 0); null when the labels are
   * classes.
   */
  default float[] values() {
    return null;
  }

  /** Floats of {@link #values()} per row: 1, or a multilabel table's number of labels. */
  default int valueWidth() {
    return 1;
  }

  /**
   * Whether each row has several yes/no targets (a multilabel table, whose {@link #classNames()}
   * name the labels).
   */
  default boolean multilabel() {
    return false;
  }

  default int size() {
    return labels().length;
  }

  /**
   * Shape of one example without the batch axis: {@code (channels, rows, cols)} for images, {@code
   * (features)} for vectors.
   */
  long[] exampleShape();

  /** Number of floats in one example (the product of {@link #exampleShape()}). */
  int exampleSize();

  /**
   * Examples {@code rows[0], rows[1], …} as model input, one after the other ({@code rows.length *
   * exampleSize()} floats): pixels scaled to [0, 1] (then normalised per channel when the images
   * say so), features as stored.
   */
  float[] floats(int[] rows);

  /** Rows {@code [from, to)} as a new dataset of the same kind. */
  LabeledExamples slice(int from, int to);

  /** Rows {@code rows[0], rows[1], …}, in that order, as a new dataset of the same kind. */
  LabeledExamples select(int[] rows);

  /**
   * The table's class names ({@code keel.label.classes}), label {@code i} the {@code i}-th; empty
   * when the table has none.
   */
  List<String> classNames();

  /** What one example is, for messages: {@code 28x28 images} or {@code vectors of 4 features}. */
  String describe();
}
