package dev.keel.api.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Loads a protobuf config message from YAML or JSON: shape check (unknown fields, wrong types),
 * protobuf JSON parse, then semantic validation. Every problem is reported at once, each with its
 * field path; the file name and line are added for syntax errors.
 */
public final class ProtoConfigLoader<T extends Message> {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final String what;
  private final Supplier<Message.Builder> builder;
  private final Function<T, List<ConfigProblem>> validator;

  public ProtoConfigLoader(String what, Supplier<Message.Builder> builder, Function<T, List<ConfigProblem>> validator) {
    this.what = what;
    this.builder = builder;
    this.validator = validator;
  }

  /** Loads a {@code .yaml}/{@code .yml} or {@code .json} file; problems name the file. */
  public T fromFile(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ConfigValidationException(what + " " + file, List.of(new ConfigProblem("", "file not found")));
    } catch (IOException e) {
      throw new ConfigValidationException(what + " " + file, List.of(new ConfigProblem("", "cannot read: " + e.getMessage())));
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
    JsonNode tree;
    try {
      tree = mapper.readTree(text);
    } catch (JsonProcessingException e) {
      String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
      throw new ConfigValidationException(source, List.of(new ConfigProblem("", "syntax error" + where + ": " + e.getOriginalMessage())));
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      throw new ConfigValidationException(source, List.of(new ConfigProblem("", "empty document")));
    }
    return fromTree(tree, source);
  }

  /** Shape check, parse and validate a JSON tree. */
  @SuppressWarnings("unchecked")
  public T fromTree(JsonNode tree, String source) {
    Message.Builder b = builder.get();
    JsonNode normalized = ConfigNormalizer.normalize(tree.deepCopy(), b.getDescriptorForType());
    Problems problems = new Problems();
    ProtoShapeChecker.check(normalized, b.getDescriptorForType(), "", problems);
    if (!problems.isEmpty()) {
      throw new ConfigValidationException(source, problems.list());
    }
    try {
      JsonFormat.parser().merge(JSON.writeValueAsString(normalized), b);
    } catch (InvalidProtocolBufferException | JsonProcessingException e) {
      throw new ConfigValidationException(source, List.of(new ConfigProblem("", e.getMessage())));
    }
    T message = (T) b.build();
    List<ConfigProblem> semantic = validator.apply(message);
    if (!semantic.isEmpty()) {
      throw new ConfigValidationException(source, semantic);
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
