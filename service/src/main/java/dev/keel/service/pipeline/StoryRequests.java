package dev.keel.service.pipeline;

import dev.keel.api.v1.Length;
import dev.keel.api.v1.ModelSelector;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineWarmStart;
import dev.keel.search.ExperimentConfigLoaders;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The two pipeline requests of the data-versioning story, from {@code keel/story-pipeline.yaml}:
 * the first trains on a table version with only a few examples of one class; the second is the same
 * request with only the data changed (the whole class) and warm-started from the name's champion,
 * which the first registered.
 */
public final class StoryRequests {
  public static final String RESOURCE = "keel/story-pipeline.yaml";
  private static final DateTimeFormatter STAMP =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private StoryRequests() {}

  /** The first run: the shipped request, reading {@code dataDir}. */
  public static PipelineRequest fewOfOneClass(Path dataDir) {
    PipelineRequest.Builder b =
        ExperimentConfigLoaders.pipelineLoader().fromYaml(DemoRequest.text(RESOURCE)).toBuilder();
    b.getSourceBuilder().setUri(dataDir.toAbsolutePath().toString());
    return ExperimentConfigLoaders.pipelineLoader().validate(b.build(), "story request");
  }

  /** The first run training {@code batches} batches instead of the shipped length. */
  public static PipelineRequest fewOfOneClass(Path dataDir, long batches) {
    PipelineRequest.Builder b = fewOfOneClass(dataDir).toBuilder();
    b.getExperimentBuilder()
        .getSearcherBuilder()
        .setMaxLength(Length.newBuilder().setBatches(batches));
    return ExperimentConfigLoaders.pipelineLoader().validate(b.build(), "story request");
  }

  /**
   * The demo registers each telling of the story under its own model name, so that the champion the
   * second run warm-starts from is the first run's model, not one of an earlier telling.
   */
  public static String modelName(Instant now) {
    return "fashion-mnist-story-" + STAMP.format(now);
  }

  /**
   * The second run: {@code first} without its label limits, warm-started from the champion of its
   * model name.
   */
  public static PipelineRequest wholeClassFromTheChampion(PipelineRequest first) {
    String model = first.getModelName().isEmpty() ? first.getName() : first.getModelName();
    PipelineRequest.Builder b =
        first.toBuilder()
            .setWarmStart(
                PipelineWarmStart.newBuilder()
                    .setModel(
                        ModelSelector.newBuilder().setName(model).setStage(ModelStage.champion)));
    b.getSourceBuilder().clearLabelLimits();
    return ExperimentConfigLoaders.pipelineLoader().validate(b.build(), "story request");
  }
}
