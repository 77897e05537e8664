package dev.keel.service.experiment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Everything the dashboard shows of one trial, as one JSON document: {@link TrialReport#json()}
 * (the trial as in the experiment's view, every validation with all its metrics, its checkpoints)
 * with the experiment it belongs to ({@code experiment_id, name, state, metric, smaller_is_better,
 * unit, live, running}) and its lines of the experiment's log ({@code [{"time", "text"}]}, oldest
 * first, as {@code keel trial logs} prints them).
 */
public final class TrialView {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> EXPERIMENT_FIELDS =
      List.of(
          "experiment_id",
          "name",
          "state",
          "metric",
          "smaller_is_better",
          "unit",
          "live",
          "running");

  private TrialView() {}

  /** The trial of the view, or empty when the experiment has no such trial. */
  public static Optional<String> json(ExperimentView.Document view, long trialId) {
    return TrialReport.of(view, trialId)
        .map(
            report -> {
              ObjectNode out = JSON.createObjectNode();
              ObjectNode experiment = out.putObject("experiment");
              JsonNode about = view.tree().path("experiment");
              EXPERIMENT_FIELDS.forEach(
                  f -> {
                    if (about.has(f)) {
                      experiment.set(f, about.get(f));
                    }
                  });
              try {
                out.setAll((ObjectNode) JSON.readTree(report.json()));
              } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
              }
              ArrayNode logs = out.putArray("logs");
              for (ExperimentLog.Line line :
                  ExperimentLog.lines(
                      view.records(),
                      OptionalLong.of(trialId),
                      about.path("unit").asText("units"))) {
                logs.addObject().put("time", line.time().toString()).put("text", line.text());
              }
              return out.toString();
            });
  }
}
