package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.service.api.ApiServer;
import dev.keel.service.cli.KeelRun;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.dataset.LabeledImages;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A class present only in the test split, run as a user runs it: {@code keel submit --wait} of a
 * YAML pipeline over a Latin-1 CSV ({@code source.encoding: latin-1}) where every Bag, named {@code
 * Sac_à_main}, is a test row and every Trouser a training row. The run's output, {@code keel
 * status} and {@code keel data describe} show the rows per split and class and warn that no model
 * can learn Sac_à_main; the model (tabular_mlp, which never saw one) gets none of them right, and
 * the per-class result says {@code correct: 0} in {@code keel status --json} and the REST API (the
 * dashboard's data) instead of leaving the field out. Trouser, with no rows in the scored test
 * split, is absent.
 */
class AClassWithNoTrainingRowsIsWarnedAboutAndScoredCorrectZeroTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ROWS = 1500;
  private static final String BAG = "Sac_à_main";
  private static InProcessStack stack;

  @BeforeAll
  static void startStack() throws Exception {
    stack = InProcessStack.start("unlearned-class");
  }

  @AfterAll
  static void stopStack() {
    stack.close();
  }

  static String className(int label) {
    String name =
        IngestActivitiesImpl.FASHION_MNIST_CLASSES.get(label).replace('/', '_').replace(' ', '_');
    return name.equals("Bag") ? BAG : name;
  }

  /**
   * label, split, 16 block means of real test images; Bags in test, Trousers in train, others 1 in
   * 5 in test.
   */
  static long writeCsv(Path file) throws Exception {
    LabeledImages t10k =
        IdxFiles.read(Path.of(IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR), "t10k");
    StringBuilder header = new StringBuilder("label,split");
    for (int k = 0; k < 16; k++) {
      header.append(",f").append(k);
    }
    List<String> lines = new ArrayList<>(List.of(header.toString()));
    long bags = 0;
    for (int i = 0; i < ROWS; i++) {
      String name = className(t10k.labels()[i]);
      boolean test = name.equals(BAG) || (!name.equals("Trouser") && i % 5 == 0);
      bags += name.equals(BAG) ? 1 : 0;
      float[] f = new float[16];
      for (int p = 0; p < 784; p++) {
        f[(p / 28 / 7) * 4 + (p % 28) / 7] += (t10k.pixels()[i * 784 + p] & 0xFF) / 49f;
      }
      StringBuilder line = new StringBuilder(name).append(test ? ",test" : ",train");
      for (float x : f) {
        line.append(String.format(Locale.ROOT, ",%.3f", x));
      }
      lines.add(line.toString());
    }
    Files.write(file, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.ISO_8859_1));
    return bags;
  }

  @Test
  void theRunWarnsAndEveryReaderShowsTheUnlearnedClassWithCorrectZero() throws Exception {
    Path dir = Files.createDirectories(stack.storage.resolve("incoming"));
    long bags = writeCsv(dir.resolve("clothes-latin1.csv"));
    Path request =
        Files.writeString(
            dir.resolve("pipeline.yaml"),
            """
        name: unlearned-class
        source: {format: csv, uri: %s, label_column: label, encoding: latin-1}
        target_table: clothes
        experiment:
          hyperparameters: {lr: 0.003, batch_size: 32, hidden_units: 32}
          searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 120}}
          reproducibility: {seed: 7}
          model: {name: tabular_mlp}
        """
                .formatted(dir.resolve("clothes-latin1.csv")));
    String warning =
        "class '"
            + BAG
            + "' has no rows in the train split ("
            + bags
            + " in test): no model trained on "
            + "this table can learn it";

    KeelRun.Result submitted =
        KeelRun.keel("submit", "--wait", request.toString(), "--temporal", stack.server.address());
    assertEquals(0, submitted.code(), submitted.toString());
    String id = submitted.out().lines().findFirst().orElseThrow();
    assertTrue(
        submitted.out().contains("\n        warning:           " + warning + "\n"),
        submitted.toString());

    KeelRun.Result status = KeelRun.keel("status", id, "--temporal", stack.server.address());
    assertEquals(0, status.code(), status.toString());
    assertTrue(status.out().contains("  warning:    " + warning + "\n"), status.out());
    assertTrue(
        status.out().contains("  test rows:  ") && status.out().contains(BAG + "=" + bags),
        status.out());
    assertTrue(
        status.out().lines().anyMatch(l -> l.startsWith("  train rows: ") && !l.contains(BAG)),
        status.out());

    KeelRun.Result describe =
        KeelRun.keel("data", "describe", "clothes", "--storage", stack.storage.toString());
    assertEquals(0, describe.code(), describe.toString());
    assertTrue(describe.out().contains("        warning: " + warning + "\n"), describe.out());
    System.out.println(submitted.out() + status.out() + describe.out());

    JsonNode cli =
        JSON.readTree(
            KeelRun.keel("status", id, "--json", "--temporal", stack.server.address()).out());
    assertUnlearnedClassScoredZero(cli.get("inference").get("classes"), bags);
    assertEquals(warning, cli.get("ingest").get("warnings").get(0).asText());
    try (ApiServer api =
        ApiServer.start(
            "127.0.0.1", 0, stack.workers.client(), StorageRoot.of(stack.storage.toString()))) {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/pipelines/" + id)).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
      assertUnlearnedClassScoredZero(JSON.readTree(r.body()).get("inference").get("classes"), bags);
    }
  }

  /**
   * Sac_à_main: every test Bag, none right, correct and accuracy written as 0; Trouser (no test
   * rows) absent.
   */
  private static void assertUnlearnedClassScoredZero(JsonNode classes, long bags) {
    JsonNode bag = null;
    for (JsonNode c : classes) {
      assertTrue(
          !c.get("name").asText().equals("Trouser"),
          "a class without scored rows is absent: " + classes);
      assertTrue(c.has("correct") && c.has("accuracy"), "every figure is written: " + c);
      bag = c.get("name").asText().equals(BAG) ? c : bag;
    }
    assertEquals(9, classes.size(), classes.toString());
    assertTrue(bag != null, classes.toString());
    assertEquals(bags, bag.get("rows").asLong(), bag.toString());
    assertEquals("0", bag.get("correct").asText(), "no model learnt it: " + bag);
    assertEquals(0.0, bag.get("accuracy").asDouble(), bag.toString());
  }
}
