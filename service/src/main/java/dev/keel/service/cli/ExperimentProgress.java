package dev.keel.service.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.keel.service.experiment.ExperimentTable;
import java.io.Console;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * The progress of a followed experiment: on a terminal one line redrawn in place (a bar, trials
 * done of planned, batches trained, ETA); elsewhere (a pipe, a CI log) a plain line whenever trials
 * finish or the state changes, so a log is not flooded.
 */
final class ExperimentProgress {
  private static final int BAR = 24;

  private final PrintStream out;
  private final boolean terminal;
  private long firstNanos;
  private double firstProgress = -1;
  private String lastPlain = "";
  private int lastWidth;

  ExperimentProgress(PrintStream out, boolean terminal) {
    this.out = out;
    this.terminal = terminal;
  }

  /** Whether this process writes to a terminal (not redirected). */
  // the null check is only the first step: Console.isTerminal() decides from Java 22 on
  @SuppressWarnings("SystemConsoleNull")
  static boolean onTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    // Java 22 to 24 give a console when the output is redirected too (25 gives none again);
    // Console.isTerminal() (Java 22) says whether it is a terminal. Before 22 a console exists only
    // on a terminal.
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (NoSuchMethodException beforeJava22) {
      return true;
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }

  /** Shows the document of a view reading. */
  void show(JsonNode view) {
    JsonNode e = view.path("experiment");
    double progress = e.path("progress").asDouble(0);
    int done = 0;
    int active = 0;
    long units = 0;
    for (JsonNode t : view.path("trials")) {
      String state = t.path("state").asText("");
      if (state.equals("ACTIVE")) {
        active++;
      } else if (!state.isEmpty() && !state.equals("PAUSED")) {
        done++;
      }
      JsonNode length = t.path("completed_length");
      units +=
          length.isObject() && length.size() > 0
              ? length.elements().next().asLong()
              : t.path("completed_units").asLong(0);
    }
    int planned = e.path("planned_trials").asInt(0);
    String unit = e.path("unit").asText("units");
    String best =
        e.has("best_metric")
            ? String.format(
                Locale.ROOT,
                "  best %s %.4f",
                e.path("metric").asText(),
                e.path("best_metric").asDouble())
            : "";
    String counts =
        String.format(
                Locale.ROOT,
                "trials %d/%s done, %d active  %,d %s%s",
                done,
                planned > 0 ? Integer.toString(planned) : "?",
                active,
                units,
                unit,
                best)
            + waits(view);
    String state = e.path("state").asText("");
    if (terminal) {
      int filled = (int) Math.round(progress * BAR);
      String line =
          String.format(
              Locale.ROOT,
              "%s [%s%s] %3.0f%%  %s  %s",
              state,
              "#".repeat(filled),
              ".".repeat(BAR - filled),
              progress * 100,
              counts,
              eta(progress));
      out.print("\r" + line + " ".repeat(Math.max(0, lastWidth - line.length())));
      out.flush();
      lastWidth = line.length();
    } else {
      String line = String.format(Locale.ROOT, "%s %3.0f%%  %s", state, progress * 100, counts);
      String withoutMetric = line.replace(best, "");
      if (!withoutMetric.equals(lastPlain)) {
        out.println(line);
        lastPlain = withoutMetric;
      }
    }
  }

  /**
   * {@code 2 waiting for slots of pool gpu since 10:02:03Z}; on a terminal with how long the
   * longest has waited. Plain lines name only the time, so that a waiting experiment does not print
   * a line a second.
   */
  private String waits(JsonNode view) {
    int n = view.path("experiment").path("waiting_trials").asInt(0);
    if (n == 0) {
      return "";
    }
    Instant since = null;
    for (JsonNode t : view.path("trials")) {
      if (!t.path("waiting_since").asText("").isEmpty()) {
        Instant s = Instant.parse(t.path("waiting_since").asText());
        since = since == null || s.isBefore(since) ? s : since;
      }
    }
    String pool = view.path("experiment").path("resource_pool").asText("");
    String head = "  " + n + " waiting for slots" + (pool.isEmpty() ? "" : " of pool " + pool);
    if (since == null) {
      return head;
    }
    return terminal
        ? head + " for " + duration(Duration.between(since, Instant.now()))
        : head + " since " + since;
  }

  /** Ends the redrawn line. */
  void finish() {
    if (terminal && lastWidth > 0) {
      out.println();
    }
  }

  /**
   * From the rate of progress since following began (the experiment may have started long before).
   */
  private String eta(double progress) {
    long now = System.nanoTime();
    if (firstProgress < 0) {
      firstProgress = progress;
      firstNanos = now;
    }
    if (progress <= firstProgress || progress >= 1.0) {
      return "";
    }
    double rate = (progress - firstProgress) / (now - firstNanos);
    return "ETA " + duration(Duration.ofNanos((long) ((1 - progress) / rate)));
  }

  static String duration(Duration d) {
    return ExperimentTable.duration(d);
  }
}
