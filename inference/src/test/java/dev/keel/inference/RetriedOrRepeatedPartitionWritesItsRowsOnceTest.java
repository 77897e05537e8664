package dev.keel.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.activities.infer.InferenceActivities;
import dev.keel.api.v1.CommitPredictionsRequest;
import dev.keel.api.v1.InferencePlan;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.ScorePartitionRequest;
import dev.keel.api.v1.ScorePartitionResult;
import dev.keel.api.v1.TableRef;
import io.temporal.testing.TestActivityEnvironment;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A partition whose first attempts fail after writing their files is retried and its rows land
 * once; a partition scored twice in one run stages two sets of files of which only the accepted one
 * is committed; committing a run again (a retried commit) returns the same version and adds
 * nothing.
 */
class RetriedOrRepeatedPartitionWritesItsRowsOnceTest {

  @Test
  void partitionsFailingAfterStagingTheirFilesAreRetriedAndCountedOnce() throws Exception {
    Set<Integer> failed = ConcurrentHashMap.newKeySet();
    try (InferenceTestBed bed =
        new InferenceTestBed(
            (request, attempt) -> {
              int p = request.getPartition().getIndex();
              // partition 1 fails twice, partition 3 once: both after their files were written
              if ((p == 1 && attempt <= 2) || (p == 3 && attempt == 1)) {
                failed.add(p * 10 + attempt);
                throw new IllegalStateException("worker lost after writing partition " + p);
              }
            })) {
      InferenceResult result = bed.run("retried", bed.request("retried").build());
      assertEquals(Set.of(11, 12, 31), failed);
      assertEquals(InferenceTestBed.TEST_ROWS, result.getRows());
      List<Map<String, Object>> rows = InferenceTestBed.rows(bed.table("retried"));
      assertEquals(InferenceTestBed.TEST_ROWS, rows.size());
      assertEquals(
          InferenceTestBed.TEST_ROWS, rows.stream().map(r -> r.get("id")).distinct().count());
      assertEquals(0, result.getPredictions().getVersion());
    }
  }

  @Test
  void aPartitionScoredTwiceAndARunCommittedTwiceAddItsRowsOnce() throws Exception {
    TestActivityEnvironment activities = TestActivityEnvironment.newInstance();
    try (InferenceTestBed bed = new InferenceTestBed()) {
      activities.registerActivitiesImplementations(bed.real);
      var stub = activities.newActivityStub(InferenceActivities.class);
      InferenceRequest request = bed.request("twice").build();
      InferencePlan plan = stub.plan(request);
      String runId = "run-twice";
      CommitPredictionsRequest.Builder commit =
          CommitPredictionsRequest.newBuilder()
              .setPredictionsTableUri(plan.getPredictionsTableUri())
              .setRunId(runId)
              .setRows(plan.getRows());
      for (var partition : plan.getPartitionsList()) {
        ScorePartitionRequest score =
            ScorePartitionRequest.newBuilder()
                .setRequest(request)
                .setRunId(runId)
                .setPartition(partition)
                .setPredictionsTableUri(plan.getPredictionsTableUri())
                .build();
        ScorePartitionResult first = stub.scorePartition(score);
        ScorePartitionResult second = stub.scorePartition(score); // a duplicated attempt
        assertEquals(first.getRows(), second.getRows());
        commit.addAllFiles(second.getFilesList());
      }
      TableRef once = stub.commit(commit.build());
      TableRef again = stub.commit(commit.build());
      assertEquals(once, again, "a repeated commit returns the version that holds the run");
      List<Map<String, Object>> rows = InferenceTestBed.rows(bed.table("twice"));
      assertEquals(InferenceTestBed.TEST_ROWS, rows.size());
      assertEquals(
          Set.of(runId), rows.stream().map(r -> r.get("run_id")).collect(Collectors.toSet()));

      // a later run appends; retrying the first run's commit still names the first version
      InferenceResult later = bed.run("later", bed.request("twice").build());
      assertEquals(once.getVersion() + 1, later.getPredictions().getVersion());
      assertEquals(once, stub.commit(commit.build()));
      assertEquals(
          2 * InferenceTestBed.TEST_ROWS, InferenceTestBed.rows(bed.table("twice")).size());
    } finally {
      activities.close();
    }
  }
}
