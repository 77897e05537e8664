package dev.keel.etl;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.api.config.Splits;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * {@code source.label_limits}: keep at most N train rows of a class, the first N in the source's
 * order, so that a table version can hold only a few examples of one class (and a later version all
 * of them). Test rows are never dropped: the class stays measurable on the same test split in every
 * version.
 */
public final class LabelLimits {
  private LabelLimits() {}

  /** The rows within the limits; {@code data} itself when there are none. */
  static Decoded apply(Decoded data, Map<String, Long> limits) {
    if (limits.isEmpty()) {
      return data;
    }
    long[] left = new long[Math.max(data.classNames().size(), maxLabel(data) + 1)];
    Arrays.fill(left, Long.MAX_VALUE);
    limits.forEach((key, limit) -> left[label(key, data, left.length)] = limit);
    int[] keep =
        IntStream.range(0, data.rows())
            .filter(i -> !Splits.TRAIN.equals(data.splits()[i]) || left[data.labels()[i]]-- > 0)
            .toArray();
    return data.select(keep);
  }

  /**
   * The label a key names: a class name of the source, compared without case and punctuation
   * ({@code sneaker}, {@code ankle_boot}, {@code T-shirt/top}), or a label number.
   */
  static int label(String key, Decoded data, int labels) {
    List<String> names = data.classNames();
    for (int i = 0; i < names.size(); i++) {
      if (namesClass(key, names.get(i))) {
        return i;
      }
    }
    if (key.strip().matches("[0-9]{1,9}") && Integer.parseInt(key.strip()) < labels) {
      return Integer.parseInt(key.strip());
    }
    throw KeelFailure.nonRetryable(
        "source.label_limits: '"
            + key
            + "' is not a class of the source ("
            + (names.isEmpty() ? "labels 0.." + (labels - 1) : String.join(", ", names))
            + ")",
        FailureTypes.INVALID_ARGUMENT);
  }

  /**
   * Part of the ingest's key: the same source with other limits is another ingest. Empty when there
   * are none.
   */
  static String key(Map<String, Long> limits) {
    return new TreeMap<>(limits)
        .entrySet().stream()
            .map(e -> normal(e.getKey()) + "=" + e.getValue())
            .collect(Collectors.joining(","));
  }

  /**
   * Whether limit key {@code key} names class {@code className} (by name) or label {@code label}
   * (by number).
   */
  public static boolean names(String key, String className, int label) {
    return namesClass(key, className) || key.strip().equals(Integer.toString(label));
  }

  private static boolean namesClass(String key, String className) {
    return normal(key).equals(normal(className));
  }

  private static String normal(String name) {
    return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "");
  }

  private static int maxLabel(Decoded data) {
    return Arrays.stream(data.labels()).max().orElse(-1);
  }
}
