package dev.keel.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.Hyperparameter;
import dev.keel.api.v1.ModelSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The files a {@code model.torchscript} template names are listed where its placeholders take few
 * values (const, categorical, small int ranges, model.params), so that submission can read each; a
 * value that cannot fill its placeholder is listed with why.
 */
class ModelFileVariantsListEveryFileATemplateCanNameTest {
  private static Value num(double d) {
    return Value.newBuilder().setNumberValue(d).build();
  }

  private static Value str(String s) {
    return Value.newBuilder().setStringValue(s).build();
  }

  private static ExperimentConfig config(String template, Map<String, Hyperparameter> hps) {
    return ExperimentConfig.newBuilder()
        .putAllHyperparameters(hps)
        .setModel(
            ModelSpec.newBuilder()
                .setTorchscript(template)
                .setParams(Struct.newBuilder().putFields("act", str("relu"))))
        .build();
  }

  private static List<String> files(ExperimentConfig c) {
    return ModelFileVariants.of(c).orElseThrow().stream()
        .map(v -> v.file().orElseThrow() + " <- " + v.describe())
        .toList();
  }

  @Test
  void constCategoricalSmallIntRangesAndModelParamsAreListedInEveryCombination() {
    ExperimentConfig c =
        config(
            "/m/{act}-w{width}-d{depth}.pt",
            Map.of(
                "width",
                Hyperparameter.newBuilder()
                    .setType("categorical")
                    .addVals(num(32))
                    .addVals(num(64))
                    .build(),
                "depth",
                Hyperparameter.newBuilder().setType("int").setMinval(2).setMaxval(3).build()));
    assertEquals(
        List.of(
            "/m/relu-w32-d2.pt <- act=relu, width=32, depth=2",
            "/m/relu-w32-d3.pt <- act=relu, width=32, depth=3",
            "/m/relu-w64-d2.pt <- act=relu, width=64, depth=2",
            "/m/relu-w64-d3.pt <- act=relu, width=64, depth=3"),
        files(c));
    assertEquals(
        List.of("/m/plain.pt <- "), files(config("/m/plain.pt", Map.of())), "no placeholder");
  }

  @Test
  void realRangesWideIntRangesAndTooManyCombinationsAreNotListed() {
    Hyperparameter real =
        Hyperparameter.newBuilder().setType("double").setMinval(0).setMaxval(1).build();
    Hyperparameter wide =
        Hyperparameter.newBuilder().setType("int").setMinval(1).setMaxval(17).build();
    Hyperparameter sixteen =
        Hyperparameter.newBuilder().setType("int").setMinval(1).setMaxval(16).build();
    Hyperparameter three =
        Hyperparameter.newBuilder()
            .setType("categorical")
            .addVals(num(1))
            .addVals(num(2))
            .addVals(num(3))
            .build();
    assertEquals(Optional.empty(), ModelFileVariants.of(config("/m/{p}.pt", Map.of("p", real))));
    assertEquals(Optional.empty(), ModelFileVariants.of(config("/m/{p}.pt", Map.of("p", wide))));
    assertEquals(
        16, ModelFileVariants.of(config("/m/{p}.pt", Map.of("p", sixteen))).orElseThrow().size());
    assertEquals(
        Optional.empty(),
        ModelFileVariants.of(config("/m/{p}-{q}.pt", Map.of("p", sixteen, "q", three))),
        "48 combinations are over the cap of " + ModelFileVariants.MAX_VARIANTS);
  }

  @Test
  void aValueThatCannotFillItsPlaceholderIsAVariantWithItsProblem() {
    ModelFileVariants.Variant v =
        ModelFileVariants.of(
                config(
                    "/m/{a}/x.pt",
                    Map.of(
                        "a",
                        Hyperparameter.newBuilder().setType("const").setVal(str("..")).build())))
            .orElseThrow()
            .get(0);
    assertEquals(Optional.empty(), v.file());
    assertEquals(
        "hyperparameter a = '..' cannot fill {a} in '/m/{a}/x.pt'"
            + " (allowed: letters, digits and _ . + -, not '.' or '..')",
        v.problem().orElseThrow());
    assertEquals("a=..", v.describe());
  }
}
