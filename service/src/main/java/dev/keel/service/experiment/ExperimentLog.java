package dev.keel.service.experiment;

import dev.keel.tables.catalog.ExperimentHistory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * An experiment's event log as {@code keel experiment logs} and {@code keel trial logs} print it:
 * one line per validation (all its metrics), per checkpoint saved or deleted by GC, and per trial
 * state the catalog recorded, oldest first. What the workers print stays in their own logs.
 */
public final class ExperimentLog {
  /** One line and when it happened; {@code key} tells a line already printed from a new one. */
  public record Line(Instant time, long trialId, String key, String text) {}

  private ExperimentLog() {}

  /**
   * The lines of {@code trial}, or of every trial when empty; lengths in the searcher's {@code
   * unit}.
   */
  public static List<Line> lines(
      ExperimentHistory.Records records, OptionalLong trial, String unit) {
    List<Line> out = new ArrayList<>();
    Map<String, List<ExperimentHistory.Metric>> validations = new LinkedHashMap<>();
    for (ExperimentHistory.Metric m : records.metrics()) {
      validations
          .computeIfAbsent(m.trialId() + "/" + m.batches() + "/" + m.time(), k -> new ArrayList<>())
          .add(m);
    }
    validations.forEach(
        (key, metrics) -> {
          ExperimentHistory.Metric first = metrics.get(0);
          StringBuilder text = new StringBuilder("validated at " + first.batches() + " batches:");
          metrics.forEach(
              m -> text.append(' ').append(m.name()).append('=').append(format(m.value())));
          out.add(new Line(first.time(), first.trialId(), "validation " + key, text.toString()));
        });
    for (ExperimentHistory.Checkpoint c : records.checkpoints()) {
      String shortId = c.uuid().length() > 8 ? c.uuid().substring(0, 8) : c.uuid();
      String what =
          "DELETED".equals(c.state())
              ? "checkpoint " + shortId + " (" + c.batches() + " batches) deleted by checkpoint GC"
              : "checkpoint "
                  + shortId
                  + " saved at "
                  + c.batches()
                  + " batches ("
                  + c.sizeBytes()
                  + " bytes) "
                  + c.uri();
      out.add(new Line(c.time(), c.trialId(), "checkpoint " + c.uuid() + " " + c.state(), what));
    }
    for (ExperimentHistory.Trial t : records.trials()) {
      out.add(
          new Line(
              t.time(),
              t.trialId(),
              "trial " + t.trialId() + " " + t.state() + " " + t.length(),
              t.state()
                  + (t.length() > 0 ? " after " + t.length() + " " + unit : "")
                  + (t.error().isEmpty() ? "" : ": " + t.error())));
    }
    return out.stream()
        .filter(l -> trial.isEmpty() || l.trialId() == trial.getAsLong())
        .sorted(
            Comparator.comparing(Line::time)
                .thenComparingLong(Line::trialId)
                .thenComparing(Line::key))
        .toList();
  }

  /** {@code 2026-11-25 20:50:58 trial 1 validated at 45 batches: ...} */
  public static String format(Line line) {
    return line.time().toString().replace('T', ' ').substring(0, 19)
        + "  trial "
        + line.trialId()
        + "  "
        + line.text();
  }

  private static String format(double v) {
    return String.format(Locale.ROOT, "%.4f", v);
  }
}
