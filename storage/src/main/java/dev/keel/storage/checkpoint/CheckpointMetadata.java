package dev.keel.storage.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a checkpoint records besides tensors: who it belongs to, the model and hyperparameters, and
 * the position needed to resume deterministically (seed, batches done, batch size, training-set
 * size and the shuffle scheme that turns them into the next batch).
 *
 * @param batches batches trained in total; the next batch has this global index
 * @param shuffle name of the data-order scheme (see {@code dev.keel.gpu.train.BatchOrder})
 * @param threads intra-op threads used; bit-identical resume needs the same count
 */
public record CheckpointMetadata(
    String uuid,
    String experimentId,
    String trialId,
    ModelSpec model,
    Map<String, Value> hyperparameters,
    long seed,
    long batches,
    int batchSize,
    int trainExamples,
    String shuffle,
    TableRef data,
    int threads,
    Map<String, Double> metrics,
    String createdAt) {

  public static final int FORMAT_VERSION = 1;
  private static final ObjectMapper JSON = new ObjectMapper();

  public CheckpointMetadata {
    hyperparameters = Map.copyOf(hyperparameters);
    metrics = Map.copyOf(metrics);
  }

  public byte[] toJson() throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("format_version", FORMAT_VERSION);
    root.put("uuid", uuid);
    root.put("experiment_id", experimentId);
    root.put("trial_id", trialId);
    root.set("model", JSON.readTree(JsonFormat.printer().print(model)));
    root.set(
        "hyperparameters",
        JSON.readTree(
            JsonFormat.printer()
                .print(Struct.newBuilder().putAllFields(new TreeMap<>(hyperparameters)))));
    root.put("seed", Long.toString(seed));
    root.put("batches", batches);
    root.put("batch_size", batchSize);
    root.put("train_examples", trainExamples);
    root.put("shuffle", shuffle);
    root.set("data", JSON.readTree(JsonFormat.printer().print(data)));
    root.put("threads", threads);
    ObjectNode m = root.putObject("metrics");
    new TreeMap<>(metrics).forEach(m::put);
    root.put("created_at", createdAt);
    return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
  }

  public static CheckpointMetadata fromJson(byte[] json) throws IOException {
    JsonNode root = JSON.readTree(json);
    requireReadableFormat(root.path("format_version"));
    ModelSpec.Builder model = ModelSpec.newBuilder();
    Struct.Builder hp = Struct.newBuilder();
    TableRef.Builder data = TableRef.newBuilder();
    // a later release of the same format may add fields: read what this one knows, ignore the rest
    JsonFormat.Parser parser = JsonFormat.parser().ignoringUnknownFields();
    try {
      parser.merge(JSON.writeValueAsString(root.path("model")), model);
      parser.merge(JSON.writeValueAsString(root.path("hyperparameters")), hp);
      parser.merge(JSON.writeValueAsString(root.path("data")), data);
    } catch (InvalidProtocolBufferException e) {
      throw new IOException("bad metadata: " + e.getMessage(), e);
    }
    Map<String, Double> metrics = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.path("metrics").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      metrics.put(e.getKey(), e.getValue().asDouble());
    }
    return new CheckpointMetadata(
        text(root, "uuid"),
        text(root, "experiment_id"),
        text(root, "trial_id"),
        model.build(),
        hp.getFieldsMap(),
        Long.parseLong(text(root, "seed")),
        root.path("batches").asLong(),
        root.path("batch_size").asInt(),
        root.path("train_examples").asInt(),
        text(root, "shuffle"),
        data.build(),
        root.path("threads").asInt(),
        metrics,
        text(root, "created_at"));
  }

  /**
   * Refuses, in one line, metadata this release cannot read: a {@code format_version} above {@link
   * #FORMAT_VERSION} (written by a newer Keel, whose fields this one would misread), or none at
   * all.
   */
  private static void requireReadableFormat(JsonNode version) throws IOException {
    if (!version.canConvertToInt() || version.asInt() < 1) {
      throw new FormatException(
          "no format_version (a positive integer): not the metadata of a Keel checkpoint");
    }
    if (version.asInt() > FORMAT_VERSION) {
      throw new FormatException(
          "written in checkpoint format "
              + version.asInt()
              + " by a newer Keel; this Keel reads format "
              + FORMAT_VERSION
              + " (score or resume it with workers of the release that wrote it, or newer)");
    }
  }

  /** Metadata in a format this release does not read; its message is the whole story. */
  static final class FormatException extends IOException {
    FormatException(String message) {
      super(message);
    }
  }

  private static String text(JsonNode root, String field) throws IOException {
    JsonNode n = root.get(field);
    if (n == null || n.isNull()) {
      throw new IOException("metadata field " + field + " is missing");
    }
    return n.asText();
  }
}
