package dev.keel.service.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.TrialState;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** An experiment's state as a terminal table, one row per trial. */
public final class ExperimentTable {
  private ExperimentTable() {}

  /**
   * The state a view document ({@link ExperimentView}) holds: its experiment and trials, fields the
   * state message does not know (live, running, planned_trials, ...) left out.
   */
  public static ExperimentState state(JsonNode view) {
    ObjectNode experiment = view.path("experiment").deepCopy();
    experiment.set("trials", view.path("trials"));
    try {
      ExperimentState.Builder s = ExperimentState.newBuilder();
      JsonFormat.parser().ignoringUnknownFields().merge(experiment.toString(), s);
      return s.build();
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(
          "an experiment view the state message cannot read: " + e.getMessage(), e);
    }
  }

  public static String render(ExperimentState s) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%s  %s  %s  progress %.0f%%  best %s%s%n",
            s.getExperimentId(),
            s.getState().name(),
            s.getSearcher(),
            100 * s.getProgress(),
            s.hasBestMetric()
                ? metric(s.getBestMetric()) + " (trial " + s.getBestTrialId() + ")"
                : "-",
            s.getData().getUri().isEmpty()
                ? ""
                : "  data " + s.getData().getUri() + "@" + s.getData().getVersion()));
    if (!s.getSubmittedBy().isEmpty()) {
      out.append("submitted by ").append(s.getSubmittedBy()).append(System.lineSeparator());
    }
    if (!s.getError().isEmpty()) {
      out.append("error: ").append(s.getError()).append(System.lineSeparator());
    }
    out.append(
        String.format(
            Locale.ROOT,
            "%6s  %-10s  %8s  %8s  %10s  %10s  %-8s  %s%n",
            "trial",
            "state",
            "length",
            "target",
            "latest",
            "best",
            "restarts",
            "hyperparameters"));
    for (TrialState t : s.getTrialsList()) {
      out.append(
          String.format(
              Locale.ROOT,
              "%6d  %-10s  %8s  %8s  %10s  %10s  %-8d  %s%n",
              t.getTrialId(),
              t.getState().name(),
              units(t.getCompletedLength()),
              units(t.getTargetLength()),
              t.hasLatestMetric() ? metric(t.getLatestMetric()) : "-",
              t.hasBestMetric() ? metric(t.getBestMetric()) : "-",
              t.getRestarts(),
              hparams(t.getHparamsMap())));
      if (t.getSlots() > 1 || t.getRanksCount() > 1) {
        out.append("        ").append(ranks(t)).append(System.lineSeparator());
      }
      if (!t.getWaiting().isEmpty()) {
        out.append("        ")
            .append(t.getWaiting())
            .append(waitedFor(t.getWaitingSince()))
            .append(System.lineSeparator());
      }
      if (!t.getError().isEmpty()) {
        out.append("        ").append(t.getError()).append(System.lineSeparator());
      }
    }
    return out.toString();
  }

  /** {@code for 2m10s (since 2026-11-27T10:02:03Z)}, or nothing when the time is not known. */
  static String waitedFor(String since) {
    if (since.isEmpty()) {
      return "";
    }
    try {
      Instant from = Instant.parse(since);
      return " for " + duration(Duration.between(from, Instant.now())) + " (since " + since + ")";
    } catch (DateTimeParseException e) {
      return " (since " + since + ")";
    }
  }

  /** {@code 45s}, {@code 2m10s}, {@code 1h05m}. */
  public static String duration(Duration d) {
    long s = Math.max(0, d.toSeconds());
    return s >= 3600
        ? String.format(Locale.ROOT, "%dh%02dm", s / 3600, s / 60 % 60)
        : s >= 60 ? String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60) : s + "s";
  }

  /** {@code slots 2: rank 0 123@host-a (cpu), rank 1 456@host-b (cpu)}. */
  static String ranks(TrialState t) {
    String ranks =
        t.getRanksList().stream()
            .map(
                r ->
                    "rank "
                        + r.getRank()
                        + " "
                        + r.getWorkerIdentity()
                        + " ("
                        + r.getDevice()
                        + ")")
            .collect(Collectors.joining(", "));
    return "slots "
        + Math.max(t.getSlots(), t.getRanksCount())
        + ": "
        + (ranks.isEmpty() ? "no rank has trained yet" : ranks);
  }

  /**
   * In the unit of the experiment's searcher.max_length, like every length of its trials; "-" when
   * not known.
   */
  private static String units(Length length) {
    return TrainingLength.unitOf(length).isEmpty()
        ? "-"
        : Long.toString(TrainingLength.of(length).units());
  }

  private static String metric(double v) {
    return String.format(Locale.ROOT, "%.4f", v);
  }

  private static String hparams(Map<String, Value> hp) {
    return new TreeMap<>(hp)
        .entrySet().stream()
            .map(e -> e.getKey() + "=" + value(e.getValue()))
            .collect(Collectors.joining(" "));
  }

  private static String value(Value v) {
    return switch (v.getKindCase()) {
      case NUMBER_VALUE ->
          v.getNumberValue() == Math.rint(v.getNumberValue()) && Math.abs(v.getNumberValue()) < 1e9
              ? Long.toString((long) v.getNumberValue())
              : String.format(Locale.ROOT, "%.4g", v.getNumberValue());
      case STRING_VALUE -> v.getStringValue();
      case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
      default -> v.toString().trim();
    };
  }
}
