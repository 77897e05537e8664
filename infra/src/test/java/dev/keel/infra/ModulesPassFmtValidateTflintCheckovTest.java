package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The static checks of every module and of the example root, on a fresh copy of infra/terraform.
 */
class ModulesPassFmtValidateTflintCheckovTest {
  private static Path tree;

  @BeforeAll
  static void copy() {
    tree = TofuModule.copyOfSources();
  }

  @Test
  void everyFileIsInTofuCanonicalFormat() {
    Tool.Result fmt = Tool.tofu(tree).run("fmt", "-check", "-recursive", "-diff", "-no-color");
    assertEquals(
        0,
        fmt.exitCode(),
        () -> "tofu fmt -check -recursive found files to format:\n" + fmt.output());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.keel.infra.InfraTools#roots")
  void everyModuleAndTheExampleRootValidate(String root) {
    TofuModule module = TofuModule.copyOf(root);
    module.init("-backend=false");
    Tool.Result validate = module.tofu().run("validate", "-no-color").ok();
    assertTrue(validate.output().contains("The configuration is valid."), validate.output());
  }

  @Test
  void tflintFindsNoIssueInAnyModule() {
    Tool tflint = new Tool(InfraTools.tflint(), tree, Map.of());
    Tool.Result lint =
        tflint.run(
            "--recursive",
            "--config",
            tree.resolve(".tflint.hcl").toString(),
            "--no-color",
            "--format",
            "compact");
    assertEquals(
        0,
        lint.exitCode(),
        () -> "tflint (bundled terraform ruleset, preset all):\n" + lint.output());
    assertFalse(lint.output().contains("issue(s) found"), lint.output());
  }

  @Test
  void checkovFindsNoFailedCheckAndEverySkipSaysWhy() throws IOException {
    Tool checkov = new Tool(InfraTools.checkov(), tree, Map.of());
    Tool.Result scan =
        checkov.run(
            "--directory", ".", "--framework", "terraform", "--skip-download", "--output", "json");
    JsonNode report = TofuModule.JSON.readTree(scan.output().substring(scan.output().indexOf('{')));
    JsonNode summary = report.path("summary");
    assertEquals(
        0, summary.path("failed").asInt(-1), () -> "checkov failed checks:\n" + scan.output());
    assertEquals(
        0,
        summary.path("parsing_errors").asInt(-1),
        () -> "checkov could not parse a file:\n" + scan.output());
    assertEquals(0, scan.exitCode(), scan::output);
    assertTrue(
        summary.path("passed").asInt() > 50, () -> "checkov checked almost nothing: " + summary);
    List<String> unexplained = new ArrayList<>();
    for (JsonNode skipped : report.path("results").path("skipped_checks")) {
      if (skipped.path("check_result").path("suppress_comment").asText("").isBlank()) {
        unexplained.add(
            skipped.path("check_id").asText() + " on " + skipped.path("resource").asText());
      }
    }
    assertEquals(
        List.of(),
        unexplained,
        "skipped checkov checks need a reason in their #checkov:skip comment");
  }
}
