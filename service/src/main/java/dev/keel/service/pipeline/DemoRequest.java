package dev.keel.service.pipeline;

import dev.keel.api.v1.Length;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.search.ExperimentConfigLoaders;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The demo pipeline request, shipped as {@code keel/demo-pipeline.yaml}. */
public final class DemoRequest {
  public static final String DEFAULT_DATA = IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR;
  public static final String RESOURCE = "keel/demo-pipeline.yaml";

  private DemoRequest() {}

  /** The shipped request, reading the dataset from {@code dataDir}. */
  public static PipelineRequest load(Path dataDir) {
    PipelineRequest request = ExperimentConfigLoaders.pipelineLoader().fromYaml(text());
    PipelineRequest.Builder b = request.toBuilder();
    b.getSourceBuilder().setUri(dataDir.toAbsolutePath().toString());
    return b.build();
  }

  /** The shipped request, training for {@code batches} batches instead of the demo's length. */
  public static PipelineRequest load(Path dataDir, long batches) {
    PipelineRequest.Builder b = load(dataDir).toBuilder();
    b.getExperimentBuilder()
        .getSearcherBuilder()
        .setMaxLength(Length.newBuilder().setBatches(batches));
    return ExperimentConfigLoaders.pipelineLoader().validate(b.build(), "demo request");
  }

  public static String text() {
    return text(RESOURCE);
  }

  /** A request shipped on the class path. */
  static String text(String resource) {
    try (InputStream in = DemoRequest.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One line saying how to get the data when it is not there. */
  public static void requireDataset(Path dir) {
    for (String f : IngestActivitiesImpl.FASHION_MNIST_FILES) {
      if (!Files.isRegularFile(dir.resolve(f))) {
        throw new IllegalArgumentException(
            "Fashion-MNIST not found at "
                + dir
                + " (missing "
                + f
                + "): install it with 'apt-get install -y dataset-fashion-mnist' or pass --data DIR");
      }
    }
  }
}
