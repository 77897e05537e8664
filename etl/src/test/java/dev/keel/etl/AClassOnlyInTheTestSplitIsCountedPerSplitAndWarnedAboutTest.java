package dev.keel.etl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.DataHistory;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.DataVersion;
import dev.keel.api.v1.IngestMode;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.LabelRows;
import dev.keel.etl.history.DataTableHistory;
import dev.keel.etl.testing.RealData;
import dev.keel.tables.DeltaTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A class whose rows are all in the test split (a split column that puts every Bag in test) is one
 * no model trained on the table can learn. The ingest's result and {@code keel data describe} count
 * rows per split and class, and both warn about it; the warning is about the table version written,
 * so an append that brings only test rows of a class the table already trains on warns of nothing,
 * and an overwrite that leaves only test rows of it does.
 */
class AClassOnlyInTheTestSplitIsCountedPerSplitAndWarnedAboutTest {
  static final String BAG = "Bag";
  static final String WARNING =
      "class 'Bag' has no rows in the train split (%d in test): no model trained on this "
          + "table can learn it";

  Path root;
  String table;

  @BeforeEach
  void setUp() throws Exception {
    root =
        Files.createDirectories(
            Path.of("target", "coverage", UUID.randomUUID().toString()).toAbsolutePath());
    table = root.resolve("t").toString();
  }

  static boolean isBag(int i) {
    return RealData.className(RealData.label(i)).equals(BAG);
  }

  /** Rows from..to-1; a row is test when {@code test} says so. */
  Path csv(String name, int from, int to, IntPredicate test) throws Exception {
    List<String> lines = new ArrayList<>(List.of(RealData.csvHeader(true)));
    for (int i = from; i < to; i++) {
      lines.add(RealData.csvLine(i, test.test(i) ? "test" : "train"));
    }
    return Files.write(root.resolve(name), lines);
  }

  /** split -> class -> rows, counted here from the rows written. */
  static Map<String, Map<String, Long>> expected(int from, int to, IntPredicate test) {
    Map<String, Map<String, Long>> m = new TreeMap<>();
    for (int i = from; i < to; i++) {
      m.computeIfAbsent(test.test(i) ? "test" : "train", k -> new TreeMap<>())
          .merge(RealData.className(RealData.label(i)), 1L, Long::sum);
    }
    return m;
  }

  static Map<String, Map<String, Long>> counts(Map<String, LabelRows> proto) {
    Map<String, Map<String, Long>> m = new TreeMap<>();
    proto.forEach((split, labels) -> m.put(split, new TreeMap<>(labels.getRowsPerLabelMap())));
    return m;
  }

  IngestResult ingest(Path csv, String mode) {
    return new IngestActivitiesImpl()
        .ingest(
            IngestRequest.newBuilder()
                .setTableUri(table)
                .setSource(
                    DataSource.newBuilder()
                        .setFormat(DataSource.Format.csv)
                        .setUri(csv.toString())
                        .setLabelColumn("label")
                        .setMode(
                            (mode.isEmpty()
                                ? IngestMode.INGEST_MODE_UNSPECIFIED
                                : IngestMode.valueOf(mode))))
                .build());
  }

  @Test
  void theIngestAndDataDescribeCountPerSplitAndClassAndWarnOfTheClassNoModelCanLearn()
      throws Exception {
    IntPredicate bagsInTest = i -> isBag(i) || i % 5 == 0;
    IngestResult r = ingest(csv("bags-in-test.csv", 0, 300, bagsInTest), "append");
    Map<String, Map<String, Long>> expected = expected(0, 300, bagsInTest);
    long bags = expected.get("test").get(BAG);
    assertTrue(bags > 10 && !expected.get("train").containsKey(BAG), expected.toString());
    assertEquals(expected, counts(r.getRowsPerSplitLabelMap()));
    assertEquals(List.of(WARNING.formatted(bags)), r.getWarningsList());

    DataVersion v0 = DataTableHistory.describe(DeltaTables.defaultEngine(), table).getVersions(0);
    assertEquals(expected, counts(v0.getRowsPerSplitLabelMap()), "counted from the table's data");
    assertEquals(List.of(WARNING.formatted(bags)), v0.getWarningsList());
    String text =
        DataTableHistory.render(DataTableHistory.describe(DeltaTables.defaultEngine(), table));
    assertTrue(text.contains("        warning: " + WARNING.formatted(bags) + "\n"), text);
    assertTrue(
        text.contains("        rows in test:   ") && text.contains("        rows in train:  "),
        text);
    String testLine =
        text.lines().filter(l -> l.startsWith("        rows in test:")).findFirst().orElseThrow();
    assertTrue(testLine.contains(BAG + "=" + bags), testLine);
  }

  @Test
  void theWarningIsAboutTheTableVersionWritten() throws Exception {
    IntPredicate hashLike = i -> i % 5 == 0;
    IngestResult v0 = ingest(csv("all-classes.csv", 0, 200, hashLike), "append");
    assertEquals(List.of(), v0.getWarningsList(), "every class has train rows");

    // an append of Bags in test only: the table still trains on the Bags of v0
    IntPredicate onlyTest = i -> true;
    IngestResult v1 = ingest(csv("more-test-bags.csv", 200, 260, onlyTest), "append");
    assertEquals(1, v1.getTable().getVersion());
    assertEquals(
        expected(200, 260, onlyTest), counts(v1.getRowsPerSplitLabelMap()), "this ingest's rows");
    assertEquals(List.of(), v1.getWarningsList());

    // an overwrite with the Bags in test only: this version has none to train on
    IntPredicate bagsInTest = i -> isBag(i) || i % 5 == 0;
    IngestResult v2 = ingest(csv("bags-in-test.csv", 300, 500, bagsInTest), "overwrite");
    long bags = expected(300, 500, bagsInTest).get("test").get(BAG);
    assertEquals(List.of(WARNING.formatted(bags)), v2.getWarningsList());

    DataHistory h = DataTableHistory.describe(DeltaTables.defaultEngine(), table);
    assertEquals(List.of(), h.getVersions(1).getWarningsList());
    Map<String, Map<String, Long>> v1Rows = expected(0, 200, hashLike);
    expected(200, 260, onlyTest)
        .forEach(
            (split, labels) ->
                labels.forEach(
                    (label, n) ->
                        v1Rows
                            .computeIfAbsent(split, k -> new TreeMap<>())
                            .merge(label, n, Long::sum)));
    assertEquals(
        v1Rows, counts(h.getVersions(1).getRowsPerSplitLabelMap()), "the table's rows at v1");
    assertEquals(List.of(WARNING.formatted(bags)), h.getVersions(2).getWarningsList());
  }
}
