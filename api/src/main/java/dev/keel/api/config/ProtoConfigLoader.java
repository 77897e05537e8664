package dev.keel.api.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Loads a protobuf config message from YAML or JSON: shape check (unknown fields, wrong types),
 * protobuf JSON parse, then semantic validation. Every problem is reported at once, each with its
 * field path; the file name and line are added for syntax errors.
 *
 * <p>What it reads is bounded before any parsing: at most {@link ConfigLimits#MAX_CONFIG_BYTES} of
 * text, nested at most {@link ConfigLimits#MAX_NESTING_DEPTH} deep, and YAML aliases are counted,
 * never expanded.
 */
public final class ProtoConfigLoader<T extends Message> {
  private static final StreamReadConstraints CONSTRAINTS =
      StreamReadConstraints.builder()
          .maxNestingDepth(ConfigLimits.MAX_NESTING_DEPTH)
          .maxStringLength(ConfigLimits.MAX_CONFIG_BYTES)
          .build();
  private static final ObjectMapper JSON =
      new ObjectMapper(JsonFactory.builder().streamReadConstraints(CONSTRAINTS).build());
  private static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              .loaderOptions(yamlLimits())
              .streamReadConstraints(CONSTRAINTS)
              .build());

  private final String what;
  private final Supplier<Message.Builder> builder;
  private final Function<T, List<ConfigProblem>> validator;

  public ProtoConfigLoader(
      String what, Supplier<Message.Builder> builder, Function<T, List<ConfigProblem>> validator) {
    this.what = what;
    this.builder = builder;
    this.validator = validator;
  }

  /** Loads a {@code .yaml}/{@code .yml} or {@code .json} file; problems name the file. */
  public T fromFile(Path file) {
    String text;
    try {
      if (Files.size(file) > ConfigLimits.MAX_CONFIG_BYTES) {
        throw new ConfigValidationException(
            what + " " + file, List.of(tooLarge(Files.size(file) + " bytes")));
      }
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigValidationException(
          what + " " + file, List.of(new ConfigProblem("", "file not found")));
    } catch (IOException e) {
      throw new ConfigValidationException(
          what + " " + file, List.of(new ConfigProblem("", "cannot read: " + e.getMessage())));
    }
    String name = file.getFileName().toString();
    boolean json = name.endsWith(".json");
    return load(text, json ? JSON : YAML, what + " " + file);
  }

  public T fromYaml(String yaml) {
    return load(yaml, YAML, what);
  }

  /** JSON in protobuf's JSON mapping (snake_case or lowerCamel names). */
  public T fromJson(String json) {
    return load(json, JSON, what);
  }

  private T load(String text, ObjectMapper mapper, String source) {
    if (text.length() > ConfigLimits.MAX_CONFIG_BYTES) {
      throw new ConfigValidationException(source, List.of(tooLarge(text.length() + " characters")));
    }
    JsonNode tree;
    try (JsonParser parser = mapper.createParser(text)) {
      try {
        tree = mapper.readTree(parser);
      } catch (StreamConstraintsException e) {
        // Jackson's text names its own API: say what the limit is, and where the parser stopped
        throw new ConfigValidationException(
            source,
            List.of(
                new ConfigProblem(
                    "",
                    "nested deeper than "
                        + ConfigLimits.MAX_NESTING_DEPTH
                        + " levels at line "
                        + parser.currentLocation().getLineNr()
                        + " (Keel's limit for a config)")));
      }
    } catch (JsonProcessingException e) {
      String where =
          e.getLocation() == null
              ? ""
              : " at line "
                  + e.getLocation().getLineNr()
                  + ", column "
                  + e.getLocation().getColumnNr();
      throw new ConfigValidationException(
          source,
          List.of(new ConfigProblem("", "syntax error" + where + ": " + e.getOriginalMessage())));
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a String has no I/O to fail
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      throw new ConfigValidationException(source, List.of(new ConfigProblem("", "empty document")));
    }
    return fromTree(tree, source);
  }

  private static ConfigProblem tooLarge(String size) {
    return new ConfigProblem(
        "",
        "larger than " + ConfigLimits.configSize() + " (" + size + "; Keel's limit for a config)");
  }

  private static LoaderOptions yamlLimits() {
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit(ConfigLimits.MAX_CONFIG_BYTES);
    options.setNestingDepthLimit(ConfigLimits.MAX_NESTING_DEPTH);
    options.setMaxAliasesForCollections(ConfigLimits.MAX_YAML_ALIASES);
    return options;
  }

  /** Shape check, parse and validate a JSON tree. */
  @SuppressWarnings("unchecked")
  public T fromTree(JsonNode tree, String source) {
    Message.Builder b = builder.get();
    JsonNode normalized = ConfigNormalizer.normalize(tree.deepCopy(), b.getDescriptorForType());
    Problems problems = new Problems();
    ProtoShapeChecker.check(normalized, b.getDescriptorForType(), "", problems);
    if (!problems.onlyDropped()) {
      throw new ConfigValidationException(source, problems.list());
    }
    try {
      JsonFormat.parser().merge(JSON.writeValueAsString(normalized), b);
    } catch (InvalidProtocolBufferException | JsonProcessingException e) {
      throw new ConfigValidationException(source, List.of(new ConfigProblem("", e.getMessage())));
    }
    T message = (T) b.build();
    problems.addAllBut(validator.apply(message));
    if (!problems.isEmpty()) {
      throw new ConfigValidationException(source, problems.list());
    }
    return message;
  }

  /** Validates an already-built message (e.g. one that arrived as a binary payload). */
  public T validate(T message, String source) {
    List<ConfigProblem> semantic = validator.apply(message);
    if (!semantic.isEmpty()) {
      throw new ConfigValidationException(source, semantic);
    }
    return message;
  }
}
