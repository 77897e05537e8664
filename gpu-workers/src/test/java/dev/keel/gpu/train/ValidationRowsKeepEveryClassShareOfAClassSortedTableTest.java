package dev.keel.gpu.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.api.v1.ValidationSpec;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.storage.testing.TestDirs;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledImages;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * An image folder is ingested class by class, and many CSVs are sorted by label: a real Delta table
 * written that way (Fashion-MNIST images, label 0 first, label 9 last) must validate on every class
 * in its share, on the same rows whatever order they come in, and the trainer must validate on
 * exactly those rows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ValidationRowsKeepEveryClassShareOfAClassSortedTableTest {
  private static final int ROWS = 1_200;
  private static final double FRACTION = 1.0 / 12;

  private final DeltaDatasetReader reader = new DeltaDatasetReader();
  private Path dir;
  private TableRef sorted;

  @BeforeAll
  void writeTables() throws Exception {
    dir = TestDirs.create("validation-rows");
    LabeledImages first = (LabeledImages) FashionMnist.train().slice(0, ROWS);
    Integer[] byLabel = IntStream.range(0, ROWS).boxed().toArray(Integer[]::new);
    Arrays.sort(byLabel, (a, b) -> Integer.compare(first.labels()[a], first.labels()[b]));
    sorted = write("sorted", first, Arrays.stream(byLabel).mapToInt(Integer::intValue).toArray());
  }

  @Test
  void everyClassIsInValidationWithinOneRowOfItsShare() {
    LabeledExamples all = reader.readExamples(sorted, "train");
    assertEquals(9, all.labels()[ROWS - 1], "the table lists its rows class by class");
    TrainValidationSplit split = ValidationHoldOut.of(asWorkflowsSendIt()).split(all);
    Map<Integer, Integer> rows = countByLabel(all.labels());
    Map<Integer, Integer> validation = countByLabel(split.validation().labels());
    assertEquals(rows.keySet(), validation.keySet(), "every class validates");
    for (Map.Entry<Integer, Integer> e : rows.entrySet()) {
      double share = e.getValue() * FRACTION;
      assertTrue(
          Math.abs(validation.get(e.getKey()) - share) <= 1.0,
          "class "
              + e.getKey()
              + ": "
              + validation.get(e.getKey())
              + " validation rows for a share of "
              + share);
    }
    assertEquals(ROWS, split.train().size() + split.validation().size());
    Set<Long> overlap = ids(split.train());
    overlap.retainAll(ids(split.validation()));
    assertEquals(Set.of(), overlap, "no row both trains and validates");
  }

  @Test
  void theSameRowsValidateWhateverOrderTheRowsComeIn() {
    ValidationHoldOut rule = ValidationHoldOut.of(asWorkflowsSendIt());
    LabeledExamples all = reader.readExamples(sorted, "train");
    List<Integer> order = new ArrayList<>(IntStream.range(0, all.size()).boxed().toList());
    Collections.shuffle(order, new Random(3));
    Set<Long> fromSorted = ids(rule.split(all).validation());
    Set<Long> fromShuffled =
        ids(
            rule.split(all.select(order.stream().mapToInt(Integer::intValue).toArray()))
                .validation());
    assertEquals(fromSorted, fromShuffled);
    assertEquals(
        fromSorted,
        ids(rule.split(reader.readExamples(sorted, "train")).validation()),
        "and on every read");
    Set<Long> otherSeed =
        ids(
            ValidationHoldOut.of(
                    asWorkflowsSendIt().toBuilder()
                        .setValidation(
                            ValidationSpec.newBuilder()
                                .setFraction(FRACTION)
                                .setStratify(true)
                                .setSeed(1))
                        .build())
                .split(reader.readExamples(sorted, "train"))
                .validation());
    assertNotEquals(fromSorted, otherSeed, "the seed chooses the rows");
  }

  @Test
  void aRequestOfAnOlderRunKeepsTheTableOrderCutItStartedWith() {
    TrainRequest older =
        asWorkflowsSendIt().toBuilder().clearValidation().setValidationFraction(FRACTION).build();
    TrainValidationSplit split =
        ValidationHoldOut.of(older).split(reader.readExamples(sorted, "train"));
    assertEquals(
        Set.of(9),
        countByLabel(split.validation().labels()).keySet(),
        "the last rows of a class-sorted table are one class: why the rule changed");
  }

  @Test
  void theTrainerValidatesOnExactlyTheseRows() throws Exception {
    TrainRequest request =
        asWorkflowsSendIt().toBuilder().setData(sorted).setTargetBatches(40).build();
    LabeledExamples all = reader.readExamples(sorted, "train");
    TrainingOutcome outcome =
        new Trainer(
                TrainingPlan.from(request, ModelZoo.withBuiltIns(), all),
                all,
                ProgressListener.NONE)
            .run();
    LabeledExamples validation = ValidationHoldOut.of(request).split(all).validation();
    try (CheckpointPredictor predictor = CheckpointPredictor.open(outcome.checkpoint())) {
      double accuracy = predictor.predict(validation).accuracy(validation.labels());
      assertEquals(outcome.validationMetrics().get(Metrics.VALIDATION_ACCURACY), accuracy, 0.0);
    }
  }

  private TrainRequest asWorkflowsSendIt() {
    return Requests.fashionCnn(dir.resolve("checkpoints"), 40)
        .setData(sorted)
        .putHparams("width", Requests.num(4))
        .putHparams("batch_size", Requests.num(32))
        .build();
  }

  private TableRef write(String name, LabeledImages images, int[] order) throws Exception {
    int px = images.imageBytes();
    long[] ids = new long[order.length];
    int[] labels = new int[order.length];
    String[] splits = new String[order.length];
    byte[][] pixels = new byte[order.length][];
    for (int i = 0; i < order.length; i++) {
      ids[i] = i; // as the ingest numbers them: in the order it writes
      labels[i] = images.labels()[order[i]];
      splits[i] = "train";
      pixels[i] = Arrays.copyOfRange(images.pixels(), order[i] * px, (order[i] + 1) * px);
    }
    String uri = dir.resolve(name).toUri().toString();
    long version =
        new DeltaTableWriter(
                uri,
                TableSchemas.LABELED_IMAGES,
                Map.of(TableSchemas.IMAGE_SHAPE_PROPERTY, images.rows() + "x" + images.cols()))
            .newAppend()
            .add(
                Columns.of(order.length)
                    .add("id", ids)
                    .add("label", labels)
                    .add("split", splits)
                    .add("image", pixels))
            .commit();
    return TableRef.newBuilder().setUri(uri).setVersion(version).build();
  }

  private static Map<Integer, Integer> countByLabel(int[] labels) {
    Map<Integer, Integer> counts = new TreeMap<>();
    for (int l : labels) {
      counts.merge(l, 1, Integer::sum);
    }
    return counts;
  }

  private static Set<Long> ids(LabeledExamples examples) {
    Set<Long> ids = new TreeSet<>();
    for (long id : examples.ids()) {
      ids.add(id);
    }
    return ids;
  }
}
