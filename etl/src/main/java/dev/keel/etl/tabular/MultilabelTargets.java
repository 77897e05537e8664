package dev.keel.etl.tabular;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import java.util.List;
import java.util.Locale;

/**
 * A multilabel source's targets: each label column's text as a number in [0, 1] ({@code 0}, {@code
 * 1}, a soft target such as {@code 0.8}, or {@code true}/{@code false}). A value that is none of
 * these means the column is not a yes/no label, so the whole source is refused, naming the column
 * and the first such record, rather than each row skipped as a bad record.
 */
public final class MultilabelTargets {
  private MultilabelTargets() {}

  /** One array of {@code labels.names().size()} targets per row of {@code rows}. */
  public static float[][] of(LabelColumns labels, TabularRows rows) {
    int width = labels.names().size();
    float[][] out = new float[rows.size()][width];
    List<String[]> texts = rows.labelRows();
    for (int i = 0; i < out.length; i++) {
      for (int k = 0; k < width; k++) {
        float v = target(texts.get(i)[k]);
        if (Float.isNaN(v)) {
          throw KeelFailure.nonRetryable(
              "source.task multilabel: label column '"
                  + labels.names().get(k)
                  + "' is not a yes/no target at "
                  + rows.records().get(i)
                  + " (a multilabel target is 0 or 1, a number in between, or true/false)",
              FailureTypes.INVALID_ARGUMENT);
        }
        out[i][k] = v;
      }
    }
    return out;
  }

  /** The target {@code text} means, or NaN when it is no target. */
  static float target(String text) {
    switch (text.strip().toLowerCase(Locale.ROOT)) {
      case "true":
        return 1f;
      case "false":
        return 0f;
      default:
        String[] why = new String[1];
        Float v = TabularRows.number(text, why);
        return v != null && v >= 0 && v <= 1 ? v : Float.NaN;
    }
  }
}
