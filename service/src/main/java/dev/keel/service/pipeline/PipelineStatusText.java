package dev.keel.service.pipeline;

import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineStage;
import java.util.Locale;

/**
 * {@code keel status}: a pipeline's state as aligned lines a person reads; {@code --json} prints
 * the proto.
 */
public final class PipelineStatusText {
  private PipelineStatusText() {}

  public static String render(String id, PipelineProgress p) {
    StringBuilder out = new StringBuilder();
    String state =
        switch (p.getStatus()) {
          case failed ->
              "failed in stage "
                  + (p.getFailedStage() == PipelineStage.PIPELINE_STAGE_UNSPECIFIED
                      ? p.getStage()
                      : p.getFailedStage());
          case completed -> "completed";
          default -> p.getStatus() + ", stage " + p.getStage();
        };
    out.append("pipeline ").append(id).append(": ").append(state).append('\n');
    if (p.getStatus() == PipelineProgress.Status.failed) {
      line(out, "error", p.getError());
      line(out, "type", p.getErrorType());
    }
    if (p.hasData()) {
      line(
          out,
          "data",
          p.getData().getUri()
              + " v"
              + p.getData().getVersion()
              + (p.hasIngest()
                  ? String.format(Locale.ROOT, " (%,d rows ingested)", p.getIngest().getRows())
                  : ""));
    }
    if (p.hasIngest()) {
      IngestText.perSplit(p.getIngest())
          .forEach((split, counts) -> line(out, split + " rows", counts));
      p.getIngest().getWarningsList().forEach(w -> line(out, "warning", w));
    }
    line(out, "experiment", p.getExperimentId());
    if (p.hasTrain()) {
      line(
          out,
          "training",
          String.format(
              Locale.ROOT,
              "%,d batches in %.0f s, validation accuracy %.4f",
              p.getTrain().getBatches(),
              p.getTrain().getSeconds(),
              p.getTrain().getValidationMetricsOrDefault("validation_accuracy", Double.NaN)));
    }
    if (p.hasModel()) {
      line(
          out,
          "model",
          p.getModel().getName()
              + " v"
              + p.getModel().getVersion()
              + " ("
              + p.getModel().getStage()
              + ")");
    }
    if (p.hasInference()) {
      line(
          out,
          "inference",
          String.format(
              Locale.ROOT,
              "accuracy %.4f on %,d rows, predictions %s v%d",
              p.getInference().getAccuracy(),
              p.getInference().getRows(),
              p.getInference().getPredictions().getUri(),
              p.getInference().getPredictions().getVersion()));
      if (p.getInference().hasDrift()) {
        var d = p.getInference().getDrift();
        line(
            out,
            "drift",
            String.format(
                Locale.ROOT,
                "%s %.4f against threshold %.4f: %s%s",
                d.getMeasure(),
                d.getScore(),
                d.getThreshold(),
                d.getDrifted() ? "DRIFTED" : "no drift",
                d.getTriggeredSchedule().isEmpty()
                    ? ""
                    : ", triggered schedule " + d.getTriggeredSchedule()));
      }
    }
    if (!p.getSkippedList().isEmpty()) {
      line(out, "skipped", String.join(", ", p.getSkippedList()));
    }
    return out.toString();
  }

  private static void line(StringBuilder out, String label, String value) {
    if (!value.isEmpty()) {
      out.append(
          String.format(
              Locale.ROOT, "  %-11s %s%n", label + ":", value.replace("\n", "\n              ")));
    }
  }
}
