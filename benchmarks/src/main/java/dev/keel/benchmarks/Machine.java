package dev.keel.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What the machine looked like while measuring: cores and load averages (the machine is shared).
 */
final class Machine {
  private Machine() {}

  /** {@code /proc/loadavg}'s 1/5/15-minute load averages, or "?" elsewhere. */
  static String loadAverages() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  static String describe() {
    String cpu = "?";
    try {
      cpu =
          Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
              .filter(l -> l.startsWith("model name"))
              .map(l -> l.substring(l.indexOf(':') + 1).trim())
              .findFirst()
              .orElse("?");
    } catch (IOException e) {
      // not Linux
    }
    return String.format(
        Locale.ROOT,
        "%s, %d cores, Java %s, %s UTC",
        cpu,
        Runtime.getRuntime().availableProcessors(),
        Runtime.version(),
        ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")));
  }

  static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  static String seconds(List<Double> values) {
    return Arrays.toString(
        values.stream().map(v -> String.format(Locale.ROOT, "%.2f", v)).toArray());
  }
}
