package dev.keel.service.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.experiment.ExperimentView;
import io.temporal.client.WorkflowClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "checkpoint",
    mixinStandardHelpOptions = true,
    description = "Checkpoints of an experiment: list.",
    subcommands = {CheckpointCommand.ListCheckpoints.class})
final class CheckpointCommand implements Runnable {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "Every checkpoint of the experiment by trial and batches, SAVED or DELETED by checkpoint GC.")
  static final class ListCheckpoints extends ExperimentCommand.Reading {
    @Parameters(paramLabel = "EXPERIMENT_ID")
    String id;

    @Option(names = "--trial", paramLabel = "N", description = "Only trial N.")
    Long trial;

    @Option(
        names = "--state",
        paramLabel = "SAVED|DELETED",
        description = "Only checkpoints in this state.")
    String state;

    @Option(
        names = "--json",
        description = "Print JSON, as GET /api/v1/experiments/{id}/checkpoints returns them.")
    boolean json;

    @Override
    int run(WorkflowClient client) throws Exception {
      ExperimentView.checkFilter("checkpoints", state);
      ExperimentView.Document view =
          view(client)
              .read(id)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "no experiment " + id + " in Temporal or the catalog"));
      List<JsonNode> rows = new ArrayList<>();
      for (JsonNode c : view.tree().path("checkpoints")) {
        if ((trial == null || c.path("trial_id").asLong() == trial)
            && (state == null || state.equalsIgnoreCase(c.path("state").asText()))) {
          rows.add(c);
        }
      }
      if (json) {
        System.out.println(
            JSON.writeValueAsString(
                JSON.createObjectNode().set("checkpoints", JSON.valueToTree(rows))));
        return 0;
      }
      String format = "%5s  %-36s  %-7s  %8s  %8s  %10s  %10s  %s%n";
      StringBuilder out =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  format,
                  "TRIAL",
                  "UUID",
                  "STATE",
                  "BATCHES",
                  "LENGTH",
                  "METRIC",
                  "BYTES",
                  "URI"));
      for (JsonNode c : rows) {
        out.append(
            String.format(
                Locale.ROOT,
                format,
                c.path("trial_id").asText(),
                c.path("uuid").asText(),
                c.path("state").asText(),
                c.path("batches").asText(),
                c.has("length") ? c.path("length").asText() : "-",
                c.has("metric")
                    ? String.format(Locale.ROOT, "%.4f", c.path("metric").asDouble())
                    : "-",
                c.path("size_bytes").asText(),
                c.path("uri").asText()));
      }
      out.append(rows.size())
          .append(rows.size() == 1 ? " checkpoint" : " checkpoints")
          .append(System.lineSeparator());
      System.out.print(out);
      return 0;
    }
  }
}
