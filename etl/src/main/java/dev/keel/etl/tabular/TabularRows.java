package dev.keel.etl.tabular;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.etl.HashSplit;
import java.util.ArrayList;
import java.util.List;

/**
 * Rows read from a tabular source before labels become class indices: the raw label text, the split
 * and the feature vector of each good record, and the feature columns' names.
 */
public final class TabularRows {
  /** The column that, when present and not the label, chooses each row's split. */
  public static final String SPLIT_COLUMN = "split";

  final List<String> labels = new ArrayList<>();
  final List<String[]> labelRows = new ArrayList<>();
  final List<String> splits = new ArrayList<>();
  final List<float[]> features = new ArrayList<>();
  final List<String> records = new ArrayList<>();
  private List<String> featureNames;

  /** One good record: its label columns' text (stripped), split and features. */
  void add(String[] labelTexts, String split, float[] row, String record) {
    records.add(record);
    labels.add(labelTexts[0]);
    labelRows.add(labelTexts);
    splits.add(split);
    features.add(row);
  }

  /** Fixed by the first file; every later file must have the same feature columns. */
  void featureNames(List<String> names, String file) {
    if (featureNames == null) {
      featureNames = List.copyOf(names);
    } else if (!featureNames.equals(names)) {
      throw KeelFailure.nonRetryable(
          file + ": feature columns " + names + " differ from the first file's " + featureNames,
          FailureTypes.DATASET_CORRUPT);
    }
  }

  public List<String> featureNames() {
    return featureNames == null ? List.of() : featureNames;
  }

  public int size() {
    return labels.size();
  }

  /** The text of each row's (first) label column. */
  public List<String> labels() {
    return labels;
  }

  /** The text of each row's label columns, in {@link LabelColumns#names()} order. */
  public List<String[]> labelRows() {
    return labelRows;
  }

  /** Where each row comes from, for messages: {@code file:line} (CSV) or {@code file:row}. */
  public List<String> records() {
    return records;
  }

  public String[] splits() {
    return splits.toArray(String[]::new);
  }

  public float[][] features() {
    return features.toArray(float[][]::new);
  }

  /**
   * The split of a record: the split column's value (train|test) when present, else the hash split.
   */
  static String split(String value, HashSplit hash, String key) {
    return value != null ? value : hash.splitOf(key);
  }

  /**
   * Parses one feature; null (with the reason in {@code why[0]}) when it is not a finite number.
   */
  public static Float number(String text, String[] why) {
    if (text == null || text.isBlank()) {
      why[0] = "empty";
      return null;
    }
    try {
      float f = Float.parseFloat(text.strip());
      if (!Float.isFinite(f)) {
        why[0] = "not a finite number";
        return null;
      }
      return f;
    } catch (NumberFormatException e) {
      why[0] = "not a number";
      return null;
    }
  }

  /**
   * Refuses a label or feature column that the file does not have, naming it and how many columns
   * the file has: never the header itself, which is the file's content (a file that is no CSV would
   * show its first line).
   */
  static void requireColumns(
      String file, List<String> columns, LabelColumns labels, List<String> featureColumns) {
    for (String label : labels.names()) {
      if (!columns.contains(label)) {
        throw KeelFailure.nonRetryable(
            labels.field()
                + (labels.names().size() > 1 ? ": '" : " '")
                + label
                + "' is not a column of "
                + file
                + " ("
                + headerSays(columns)
                + ")",
            FailureTypes.INVALID_ARGUMENT);
      }
    }
    for (String f : featureColumns) {
      if (!columns.contains(f)) {
        throw KeelFailure.nonRetryable(
            "source.feature_columns: '"
                + f
                + "' is not a column of "
                + file
                + " ("
                + headerSays(columns)
                + ")",
            FailureTypes.INVALID_ARGUMENT);
      }
    }
  }

  /**
   * What a header row tells without quoting it: how many columns, or that it is no CSV header at
   * all.
   */
  public static String headerSays(List<String> columns) {
    return columns.size() < 2
        ? "its first line is not a CSV header row with a label column and a feature column"
        : "its header row has " + columns.size() + " columns";
  }
}
