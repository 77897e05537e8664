package dev.keel.service.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keel.tables.catalog.ExperimentHistory;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One trial of an experiment view as {@code keel trial describe} prints it: its state,
 * hyperparameters and ranks, then one row per validation with every metric and the checkpoint it
 * saved (and whether checkpoint GC deleted it).
 */
public final class TrialReport {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final long trialId;
  private final JsonNode trial;
  private final List<ExperimentHistory.Metric> metrics;
  private final List<ExperimentHistory.Checkpoint> checkpoints;

  private TrialReport(long trialId, JsonNode trial, ExperimentHistory.Records records) {
    this.trialId = trialId;
    this.trial = trial;
    this.metrics = records.metrics().stream().filter(m -> m.trialId() == trialId).toList();
    this.checkpoints = records.checkpoints().stream().filter(c -> c.trialId() == trialId).toList();
  }

  /** The trial of the view, or empty when the experiment has no such trial. */
  public static Optional<TrialReport> of(ExperimentView.Document view, long trialId) {
    for (JsonNode t : view.tree().path("trials")) {
      if (t.path("trial_id").asLong() == trialId) {
        return Optional.of(new TrialReport(trialId, t, view.records()));
      }
    }
    return Optional.empty();
  }

  /**
   * {@code {"trial": <as in the view>, "validations": [{"batches", "length", "metrics": {...},
   * "checkpoint"}], "checkpoints": [...]}}
   */
  public String json() {
    ObjectNode out = JSON.createObjectNode();
    out.set("trial", trial);
    ArrayNode validations = out.putArray("validations");
    byBatches()
        .forEach(
            (batches, ms) -> {
              ObjectNode v =
                  validations.addObject().put("batches", batches).put("length", ms.get(0).length());
              ObjectNode values = v.putObject("metrics");
              ms.forEach(m -> values.put(m.name(), m.value()));
            });
    ArrayNode cs = out.putArray("checkpoints");
    checkpoints.forEach(
        c ->
            cs.addObject()
                .put("uuid", c.uuid())
                .put("state", c.state())
                .put("batches", c.batches())
                .put("size_bytes", c.sizeBytes())
                .put("uri", c.uri()));
    return out.toString();
  }

  /** A header and an aligned table of validations. */
  public String table() {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "trial %d  %s  trained %s of %s  restarts %d%n",
            trialId,
            trial.path("state").asText(),
            length(trial.path("completed_length")),
            length(trial.path("target_length")),
            trial.path("restarts").asInt()));
    Map<String, String> hparams = new TreeMap<>();
    trial
        .path("hparams")
        .fields()
        .forEachRemaining(e -> hparams.put(e.getKey(), e.getKey() + "=" + value(e.getValue())));
    out.append("hyperparameters: ")
        .append(String.join(", ", hparams.values()))
        .append(System.lineSeparator());
    JsonNode model = trial.path("model");
    if (!model.path("torchscript_sha256").asText("").isEmpty()) {
      out.append("model: ")
          .append(model.path("torchscript_file").asText())
          .append(" (sha256 ")
          .append(model.path("torchscript_sha256").asText())
          .append(")")
          .append(System.lineSeparator());
    }
    trial
        .path("ranks")
        .forEach(
            r ->
                out.append(
                    String.format(
                        Locale.ROOT,
                        "rank %d: %s on %s (%s)%n",
                        r.path("rank").asInt(),
                        r.path("worker_identity").asText(),
                        r.path("host").asText(),
                        r.path("device").asText())));
    if (!trial.path("waiting").asText("").isEmpty()) {
      out.append(trial.path("waiting").asText()).append(System.lineSeparator());
    }
    if (!trial.path("error").asText("").isEmpty()) {
      out.append("error: ").append(trial.path("error").asText()).append(System.lineSeparator());
    }
    TreeSet<String> names = new TreeSet<>();
    metrics.forEach(m -> names.add(m.name()));
    StringBuilder header =
        new StringBuilder(String.format(Locale.ROOT, "%8s  %8s", "BATCHES", "LENGTH"));
    names.forEach(
        n -> header.append(String.format(Locale.ROOT, "  %" + Math.max(10, n.length()) + "s", n)));
    out.append(header).append("  CHECKPOINT").append(System.lineSeparator());
    byBatches()
        .forEach(
            (batches, ms) -> {
              StringBuilder row =
                  new StringBuilder(
                      String.format(Locale.ROOT, "%8d  %8d", batches, ms.get(0).length()));
              for (String n : names) {
                String value =
                    ms.stream()
                        .filter(m -> m.name().equals(n))
                        .findFirst()
                        .map(m -> String.format(Locale.ROOT, "%.4f", m.value()))
                        .orElse("-");
                row.append(
                    String.format(Locale.ROOT, "  %" + Math.max(10, n.length()) + "s", value));
              }
              checkpoints.stream()
                  .filter(c -> c.batches() == batches && c.length() != null)
                  .findFirst()
                  .ifPresent(
                      c ->
                          row.append("  ")
                              .append(c.uuid(), 0, Math.min(8, c.uuid().length()))
                              .append(' ')
                              .append(c.state()));
              out.append(row).append(System.lineSeparator());
            });
    return out.toString();
  }

  private Map<Long, List<ExperimentHistory.Metric>> byBatches() {
    Map<Long, List<ExperimentHistory.Metric>> out = new TreeMap<>();
    metrics.forEach(m -> out.computeIfAbsent(m.batches(), b -> new ArrayList<>()).add(m));
    return out;
  }

  /**
   * A hyperparameter as a person writes it: protobuf's JSON holds every number as a double ({@code
   * 64.0}), but a batch size of 64 reads {@code 64} and a learning rate every digit, without an
   * exponent; other values as they are.
   */
  private static String value(JsonNode v) {
    if (v.isNumber()) {
      double d = v.asDouble();
      return d == Math.rint(d) && Math.abs(d) < 1e15
          ? Long.toString((long) d)
          : BigDecimal.valueOf(d).toPlainString();
    }
    return v.isTextual() ? v.asText() : v.toString();
  }

  private static String length(JsonNode length) {
    if (!length.isObject() || length.size() == 0) {
      return "-";
    }
    Map.Entry<String, JsonNode> e = length.fields().next();
    return e.getValue().asText() + " " + e.getKey();
  }
}
