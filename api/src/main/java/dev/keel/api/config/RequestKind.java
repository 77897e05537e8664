package dev.keel.api.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.google.protobuf.Descriptors.Descriptor;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.PipelineRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells a pipeline request from an experiment config by its top-level fields, so that a command
 * given one where it expected the other can say so instead of listing the other kind's fields as
 * unknown.
 */
public final class RequestKind {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private RequestKind() {}

  /**
   * The top-level fields of {@code file} that a pipeline request has and an experiment config has
   * not (e.g. {@code source}, {@code experiment}); empty when there are none or the file cannot be
   * read (the loader then reports that itself).
   */
  public static List<String> pipelineOnlyFields(Path file) {
    JsonNode tree;
    try {
      tree = YAML.readTree(Files.readString(file));
    } catch (IOException | RuntimeException unreadable) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    if (tree != null && tree.isObject()) {
      Descriptor pipeline = PipelineRequest.getDescriptor();
      Descriptor experiment = ExperimentConfig.getDescriptor();
      tree.fieldNames()
          .forEachRemaining(
              name -> {
                if (known(pipeline, name) && !known(experiment, name)) {
                  out.add(name);
                }
              });
    }
    return out;
  }

  private static boolean known(Descriptor d, String name) {
    return d.findFieldByName(name) != null
        || d.getFields().stream().anyMatch(f -> f.getJsonName().equals(name));
  }
}
