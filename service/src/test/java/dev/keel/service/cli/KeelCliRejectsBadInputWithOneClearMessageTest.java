package dev.keel.service.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.pipeline.DemoRequest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeelCliRejectsBadInputWithOneClearMessageTest {

  private static String[] run(String... args) {
    StringWriter err = new StringWriter();
    int code = KeelCli.run(new PrintWriter(err, true), args);
    return new String[] {Integer.toString(code), err.toString()};
  }

  @Test
  void validateListsEveryProblemWithItsFieldPath(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("exp.yaml");
    Files.writeString(
        config,
        """
        name: bad
        data: {table: t}
        hyperparameters:
          lr: {type: logg, minval: -4, maxval: -1}
        searcher: {name: random, metric: validation_loss, max_trials: -3, max_length: {batches: 10}}
        """);
    String[] r = run("validate", config.toString());
    assertEquals("2", r[0]);
    assertTrue(r[1].contains("searcher.max_trials: must be > 0, got -3"), r[1]);
    assertTrue(
        r[1].contains(
            "hyperparameters.lr.type: unknown type 'logg' (expected const|int|double|log|categorical)"),
        r[1]);
    assertFalse(r[1].contains("\tat "), "no stack trace: " + r[1]);
  }

  @Test
  void validateAcceptsTheShippedDemoRequest(@TempDir Path dir) throws Exception {
    Path request = dir.resolve("demo.yaml");
    Files.writeString(request, DemoRequest.text());
    assertEquals("0", run("validate", "--pipeline", request.toString())[0]);
  }

  @Test
  void validateRecognisesAPipelineRequestWithoutBeingTold(@TempDir Path dir) throws Exception {
    Path request = dir.resolve("demo-pipeline.yaml");
    Files.writeString(request, DemoRequest.text());
    assertEquals("0", run("validate", request.toString())[0]);

    // checked as a pipeline: its own problems, not the experiment config's "unknown field"s
    Files.writeString(request, DemoRequest.text().replace("target_table: fashion_mnist\n", ""));
    String[] r = run("validate", request.toString());
    assertEquals("2", r[0]);
    assertTrue(r[1].contains("target_table"), r[1]);
    assertFalse(r[1].contains("unknown field"), r[1]);
  }

  @Test
  void demoWithoutTheDatasetSaysInOneLineHowToGetIt(@TempDir Path dir) {
    String[] r = run("demo", "--data", dir.resolve("nowhere").toString());
    assertEquals("2", r[0]);
    assertEquals(1, r[1].strip().lines().count(), r[1]);
    assertTrue(r[1].contains("apt-get install -y dataset-fashion-mnist"), r[1]);
  }
}
