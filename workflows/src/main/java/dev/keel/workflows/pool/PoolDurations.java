package dev.keel.workflows.pool;

import java.util.Locale;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as pool specs write them ({@code 90s}, {@code 5m}, {@code 1h30m}, {@code 500ms}) and as
 * reasons show them.
 */
public final class PoolDurations {
  private static final Pattern WHOLE = Pattern.compile("(\\d+(ms|h|m|s))+");
  private static final Pattern PART = Pattern.compile("(\\d+)(ms|h|m|s)");

  private PoolDurations() {}

  /** Milliseconds, or empty when {@code text} is not such a duration. */
  public static OptionalLong parseMillis(String text) {
    String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
    if (!WHOLE.matcher(t).matches()) {
      return OptionalLong.empty();
    }
    long total = 0;
    Matcher m = PART.matcher(t);
    while (m.find()) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        return OptionalLong.empty();
      }
      long unit =
          switch (m.group(2)) {
            case "h" -> 3_600_000L;
            case "m" -> 60_000L;
            case "s" -> 1_000L;
            default -> 1L;
          };
      if (n > Long.MAX_VALUE / unit / 2 || total > Long.MAX_VALUE / 2) {
        return OptionalLong.empty();
      }
      total += n * unit;
    }
    return OptionalLong.of(total);
  }

  /**
   * {@code 6m}, {@code 1m30s}, {@code 2h5m}, {@code 45s}, {@code 500ms}; whole seconds above a
   * second.
   */
  public static String format(long millis) {
    if (millis < 1_000) {
      return Math.max(0, millis) + "ms";
    }
    long s = millis / 1_000;
    StringBuilder out = new StringBuilder();
    if (s >= 3_600) {
      out.append(s / 3_600).append('h');
      s %= 3_600;
    }
    if (s >= 60) {
      out.append(s / 60).append('m');
      s %= 60;
    }
    if (s > 0 || out.isEmpty()) {
      out.append(s).append('s');
    }
    return out.toString();
  }
}
