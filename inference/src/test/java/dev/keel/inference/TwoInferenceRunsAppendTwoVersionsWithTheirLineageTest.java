package dev.keel.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.InferenceProgress;
import dev.keel.api.v1.InferenceResult;
import dev.keel.tables.DeltaTables;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.client.WorkflowStub;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Each run appends one version; its rows carry the run id, the model version, the checkpoint and
 * the source table URI and version; the progress query and the current details count the
 * partitions.
 */
class TwoInferenceRunsAppendTwoVersionsWithTheirLineageTest {

  @Test
  void twoRunsAreTwoVersionsWithDistinctRunIds() throws Exception {
    try (InferenceTestBed bed = new InferenceTestBed()) {
      String table = bed.table("lineage");
      InferenceResult first = bed.run("first", bed.request("lineage").build());
      InferenceResult second =
          bed.run("second", bed.request("lineage").setModelVersion("").build());

      assertEquals(0, first.getPredictions().getVersion());
      assertEquals(1, second.getPredictions().getVersion());
      assertEquals(DeltaTables.displayUri(table), first.getPredictions().getUri());
      assertNotEquals(first.getRunId(), second.getRunId());

      List<Map<String, Object>> rows = InferenceTestBed.rows(table);
      assertEquals(
          2 * InferenceTestBed.TEST_ROWS,
          rows.size(),
          "the second run appended, the first run's rows stay");
      assertEquals(
          Set.of(first.getRunId(), second.getRunId()),
          rows.stream().map(r -> r.get("run_id")).collect(Collectors.toSet()));
      List<Map<String, Object>> firstRows = InferenceTestBed.rowsOf(rows, first.getRunId());
      assertEquals(InferenceTestBed.TEST_ROWS, firstRows.size());
      assertEquals(Set.of("fashion-model/3"), values(firstRows, "model_version"));
      assertEquals(
          Set.of(""), values(InferenceTestBed.rowsOf(rows, second.getRunId()), "model_version"));
      assertEquals(Set.of(InferenceTestBed.checkpoint().getUuid()), values(rows, "checkpoint_id"));
      assertEquals(
          Set.of(InferenceTestBed.source().getVersion()), values(rows, "source_table_version"));
      assertEquals(
          Set.of(DeltaTables.displayUri(InferenceTestBed.source().getUri())),
          values(rows, "source_table_uri"));

      InferenceProgress progress = bed.existing("second").progress();
      assertEquals(InferenceProgress.Stage.done, progress.getStage());
      assertEquals(InferenceTestBed.PARTITIONS, progress.getScored());
      assertEquals(InferenceTestBed.PARTITIONS, progress.getPartitions());
      String details =
          WorkflowStub.fromTyped(bed.existing("second"))
              .query("__temporal_workflow_metadata", WorkflowMetadata.class)
              .getCurrentDetails();
      assertTrue(details.startsWith("Keel inference: done, 2000 rows in 5 partitions"), details);
    }
  }

  private static Set<Object> values(List<Map<String, Object>> rows, String column) {
    return rows.stream().map(r -> r.get(column)).collect(Collectors.toSet());
  }
}
