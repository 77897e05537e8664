package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.keel.api.v1.ExperimentConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the loader reads is bounded before it parses: more than 1 MiB of text, or objects and lists
 * nested deeper than Keel's configs ever go, is one problem in one line naming the limit; and
 * however many problems a config has, the answer lists the first hundred.
 */
class OversizedOrDeeplyNestedConfigsAreRefusedInOneLineTest {
  private static final ProtoConfigLoader<ExperimentConfig> LOADER =
      new ProtoConfigLoader<>(
          "experiment config",
          ExperimentConfig::newBuilder,
          c -> ExperimentConfigValidator.validate(c, ExperimentConfigLoaderTest.NO_SEARCHER_RULES));

  private static List<String> problems(Runnable load) {
    ConfigValidationException e = assertThrows(ConfigValidationException.class, load::run);
    return e.problems().stream().map(ConfigProblem::toString).toList();
  }

  @Test
  void moreThanOneMebibyteOfYamlOrJsonIsRefusedNamingTheLimit() {
    String yaml = "name: x\n# " + "x".repeat(ConfigLimits.MAX_CONFIG_BYTES) + "\n";
    assertEquals(
        List.of(
            "<root>: larger than 1 MiB ("
                + yaml.length()
                + " characters; Keel's limit for a config)"),
        problems(() -> LOADER.fromYaml(yaml)));
    String json = "{\"name\": \"" + "x".repeat(ConfigLimits.MAX_CONFIG_BYTES) + "\"}";
    assertEquals(
        List.of(
            "<root>: larger than 1 MiB ("
                + json.length()
                + " characters; Keel's limit for a config)"),
        problems(() -> LOADER.fromJson(json)));
  }

  @Test
  void aFileOverOneMebibyteIsRefusedBeforeItIsRead(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("huge.yaml");
    Files.writeString(file, "name: x\n# " + "x".repeat(ConfigLimits.MAX_CONFIG_BYTES));
    ConfigValidationException e =
        assertThrows(ConfigValidationException.class, () -> LOADER.fromFile(file));
    assertEquals(
        List.of(
            "<root>: larger than 1 MiB ("
                + Files.size(file)
                + " bytes; Keel's limit for a config)"),
        e.problems().stream().map(ConfigProblem::toString).toList());
    assertEquals("experiment config " + file, e.source());
  }

  @Test
  void deeplyNestedYamlAndJsonAreRefusedInOneLine() {
    String flow =
        "name: x\nhyperparameters: {a: {type: categorical, vals: "
            + "[".repeat(200)
            + "]".repeat(200)
            + "}}\n";
    StringBuilder block = new StringBuilder("name: x\n");
    for (int i = 0; i < 200; i++) {
      block.append("  ".repeat(i)).append("k").append(i).append(":\n");
    }
    block.append("  ".repeat(200)).append("leaf: 1\n");
    String json =
        "{\"name\": \"x\", \"labels\": " + "{\"a\": ".repeat(200) + "1" + "}".repeat(200) + "}";
    assertEquals(
        List.of("<root>: nested deeper than 32 levels at line 2 (Keel's limit for a config)"),
        problems(() -> LOADER.fromYaml(flow)));
    assertEquals(
        List.of("<root>: nested deeper than 32 levels at line 34 (Keel's limit for a config)"),
        problems(() -> LOADER.fromYaml(block.toString())));
    List<String> fromJson = problems(() -> LOADER.fromJson(json));
    assertEquals(1, fromJson.size());
    assertFalse(
        fromJson.get(0).contains("\n") || fromJson.get(0).contains("StreamReadConstraints"),
        fromJson.get(0));
  }

  @Test
  void aConfigWithThousandsOfProblemsListsTheFirstHundred() {
    StringBuilder yaml = new StringBuilder("name: x\n");
    for (int i = 0; i < 5000; i++) {
      yaml.append("unknown_").append(i).append(": 1\n");
    }
    List<String> problems = problems(() -> LOADER.fromYaml(yaml.toString()));
    assertEquals(101, problems.size());
    assertEquals("<root>: and 4900 more problems (the first 100 are listed)", problems.get(100));
  }
}
