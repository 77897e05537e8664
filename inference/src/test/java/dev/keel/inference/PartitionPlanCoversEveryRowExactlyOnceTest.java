package dev.keel.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.InferencePartition;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceResult;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.dataset.LabeledImages;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The plan of a split cuts each data file into contiguous row ranges of at most the partition size;
 * reading every partition yields each row of the split exactly once (the training rows that share a
 * file with test rows are not scored); the committed predictions hold each id exactly once.
 */
class PartitionPlanCoversEveryRowExactlyOnceTest {
  private InferenceTestBed bed;

  @BeforeEach
  void start() throws Exception {
    bed = new InferenceTestBed();
  }

  @AfterEach
  void stop() {
    bed.close();
  }

  @Test
  void partitionsAreContiguousRangesOfEachFileAndReadEveryRowOnce() {
    InferencePlan plan = bed.real.plan(bed.request("plan").build());
    assertEquals(InferenceTestBed.TEST_ROWS, plan.getRows());
    assertEquals(InferenceTestBed.PARTITIONS, plan.getPartitionsCount(), plan.toString());

    Map<String, List<InferencePartition>> byFile = new TreeMap<>();
    for (int i = 0; i < plan.getPartitionsCount(); i++) {
      InferencePartition p = plan.getPartitions(i);
      assertEquals(i, p.getIndex());
      assertTrue(p.getRows() > 0 && p.getRows() <= InferenceTestBed.PARTITION_ROWS, p.toString());
      byFile.computeIfAbsent(p.getFile(), f -> new ArrayList<>()).add(p);
    }
    assertEquals(2, byFile.size(), "one group of partitions per data file");
    List<Long> fileRows = new ArrayList<>();
    for (List<InferencePartition> parts : byFile.values()) {
      long next = 0;
      for (InferencePartition p : parts) {
        assertEquals(
            next, p.getFirstRow(), "ranges of a file follow each other without gap or overlap");
        next += p.getRows();
      }
      fileRows.add(next);
    }
    fileRows.sort(null);
    assertEquals(List.of(800L, 1200L), fileRows);

    long[] read =
        plan.getPartitionsList().stream()
            .map(
                p ->
                    TablePartitions.read(
                        DeltaTables.defaultEngine(), InferenceTestBed.source(), "test", p))
            .flatMapToLong(images -> Arrays.stream(images.ids()))
            .sorted()
            .toArray();
    LabeledImages expected = InferenceTestBed.testImages();
    assertEquals(
        Arrays.toString(Arrays.stream(expected.ids()).sorted().toArray()), Arrays.toString(read));
  }

  @Test
  void theCommittedVersionHoldsEveryIdOfTheSplitOnce() throws Exception {
    InferenceResult result = bed.run("plan-run", bed.request("plan-run").build());
    assertEquals(InferenceTestBed.PARTITIONS, result.getPartitions());
    List<Map<String, Object>> rows = InferenceTestBed.rows(bed.table("plan-run"));
    long[] ids = rows.stream().mapToLong(r -> (Long) r.get("id")).sorted().toArray();
    assertEquals(
        Arrays.toString(Arrays.stream(InferenceTestBed.testImages().ids()).sorted().toArray()),
        Arrays.toString(ids));
  }
}
