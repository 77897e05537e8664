package dev.keel.service.model;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Value;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.ModelVersion;
import dev.keel.gpu.model.InputNormalization;
import dev.keel.storage.checkpoint.CheckpointFiles;
import dev.keel.storage.checkpoint.TorchScriptArchive;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledFeatures;
import dev.keel.tables.dataset.LabeledImages;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * {@code keel model export}: a registered TorchScript model as the two files serving tools take:
 * the trained module ({@code model.pt}, which {@code torch.jit.load}, TorchServe, Triton's PyTorch
 * backend and DJL Serving read) and {@code model.json}, what it takes and gives. Both are written
 * beside the target and moved in, so a failed export leaves no half-written file.
 */
public final class ModelExport {
  public static final String MODEL_FILE = "model.pt";
  public static final String DESCRIPTION_FILE = "model.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  private ModelExport() {}

  /** What was written: the module's path, size and SHA-256. */
  public record Exported(Path model, Path description, long bytes, String sha256) {}

  /** {@code --json}'s line. */
  public static String json(Exported out) {
    ObjectNode o = JSON.createObjectNode();
    o.put("model", out.model().toString());
    o.put("description", out.description().toString());
    o.put("bytes", out.bytes());
    o.put("sha256", out.sha256());
    return o.toString();
  }

  /**
   * @throws IllegalArgumentException when the version is not a TorchScript model
   */
  public static Exported write(ModelVersion version, Path dir) throws IOException {
    VerifiedCheckpoint checkpoint = VerifiedCheckpoint.open(version.getCheckpoint());
    ModelSpec model = checkpoint.metadata().model();
    String which = "model " + version.getName() + " version " + version.getVersion();
    if (model.getTorchscriptSha256().isEmpty()) {
      throw new IllegalArgumentException(
          which
              + " was trained from "
              + (model.getClass_().isEmpty()
                  ? "the built-in " + (model.getName().isEmpty() ? "fashion_cnn" : model.getName())
                  : "the Java class " + model.getClass_())
              + ", not from a model.torchscript file; only TorchScript models export as "
              + MODEL_FILE);
    }
    byte[] module = module(checkpoint);
    LabeledExamples test = new DeltaDatasetReader().readExamples(version.getData(), Splits.TEST);
    Files.createDirectories(dir);
    Path modelPt = dir.resolve(MODEL_FILE);
    Path json = dir.resolve(DESCRIPTION_FILE);
    String sha256 = sha256(module);
    replace(modelPt, module);
    replace(
        json,
        JSON.writerWithDefaultPrettyPrinter()
            .writeValueAsBytes(
                description(
                    version, model, test, sha256, checkpoint.metadata().hyperparameters())));
    return new Exported(modelPt, json, module.length, sha256);
  }

  private static byte[] module(VerifiedCheckpoint checkpoint) throws IOException {
    try (DataInputStream in = checkpoint.openFile(CheckpointFiles.TORCHSCRIPT)) {
      return in.readAllBytes();
    } catch (IOException notInThisCopy) {
      // registered before copies carried model.pt: the parameters file holds the same module
      try (DataInputStream in = checkpoint.openFile(CheckpointFiles.PARAMETERS)) {
        return TorchScriptArchive.unwrap(in.readAllBytes(), checkpoint.uri());
      }
    }
  }

  private static ObjectNode description(
      ModelVersion version,
      ModelSpec model,
      LabeledExamples data,
      String sha256,
      Map<String, Value> hyperparameters) {
    ObjectNode root = JSON.createObjectNode();
    root.put("name", version.getName());
    root.put("version", version.getVersion());
    root.put("format", "torchscript");
    root.put("file", MODEL_FILE);
    root.put("sha256", sha256);
    root.put("task", "classification");
    ObjectNode input = root.putObject("input");
    ArrayNode shape = input.putArray("shape");
    shape.add(-1);
    for (long d : data.exampleShape()) {
      shape.add(d);
    }
    input.put("dtype", "float32");
    if (data instanceof LabeledImages images) {
      input.put("layout", "NCHW");
      input.put(
          "channels",
          images.channels() == 3
              ? "rgb"
              : images.channels() == 1 ? "grey" : Integer.toString(images.channels()));
      ImageNormalization normalization =
          ImageNormalization.parse(
              text(hyperparameters, InputNormalization.MEAN),
              text(hyperparameters, InputNormalization.STD),
              InputNormalization.MEAN,
              InputNormalization.STD);
      if (normalization.isNone()) {
        input.put("values", "pixels scaled to [0, 1] (value / 255), no further normalisation");
      } else {
        input.put(
            "values", "pixels scaled to [0, 1] (value / 255), then per channel (x - mean) / std");
        ObjectNode normalize = input.putObject("normalize");
        ArrayNode mean = normalize.putArray("mean");
        ArrayNode std = normalize.putArray("std");
        for (int c = 0; c < normalization.channels(); c++) {
          mean.add(normalization.mean()[c]);
          std.add(normalization.std()[c]);
        }
      }
    } else if (data instanceof LabeledFeatures features) {
      input.put("layout", "N,features");
      input.put("values", "the features as stored in the table, in this order");
      ArrayNode names = input.putArray("features");
      features.featureNames().forEach(names::add);
    }
    ObjectNode output = root.putObject("output");
    output.put("kind", "logits");
    output.put("apply", "softmax over axis 1 for class probabilities; argmax for the class");
    ArrayNode classes = root.putArray("classes");
    classNames(version, data).forEach(classes::add);
    ObjectNode lineage = root.putObject("trained_from");
    lineage.put("torchscript", model.getTorchscriptFile());
    lineage.put("sha256", model.getTorchscriptSha256());
    lineage.put("data", version.getData().getUri() + " v" + version.getData().getVersion());
    lineage.put("checkpoint", version.getCheckpoint().getUri());
    return root;
  }

  /** The table's class names; image rows carry none in memory, so its properties tell them. */
  private static List<String> classNames(ModelVersion version, LabeledExamples data) {
    if (!data.classNames().isEmpty()) {
      return data.classNames();
    }
    Map<String, String> properties = new DeltaDatasetReader().properties(version.getData());
    return LabeledFeatures.names(properties.get(TableSchemas.CLASS_NAMES_PROPERTY));
  }

  private static String text(Map<String, Value> hyperparameters, String name) {
    Value v = hyperparameters.get(name);
    return v == null ? "" : v.getStringValue().strip();
  }

  private static void replace(Path target, byte[] bytes) throws IOException {
    Path partial = target.resolveSibling(target.getFileName() + ".partial");
    Files.write(partial, bytes);
    Files.move(
        partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
