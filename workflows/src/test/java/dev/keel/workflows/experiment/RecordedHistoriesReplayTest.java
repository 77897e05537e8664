package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.workflows.inference.InferenceWorkflowImpl;
import dev.keel.workflows.pipeline.PipelineWorkflowImpl;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every committed history replays against today's workflow code without a non-determinism error.
 */
class RecordedHistoriesReplayTest {

  @TestFactory
  Stream<DynamicTest> everyRecordedHistoryReplays() throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.list(RecordedHistories.DIR)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertTrue(files.size() >= 5, "expected the committed histories, found " + files);
    return files.stream()
        .map(
            file ->
                DynamicTest.dynamicTest(
                    file.getFileName().toString(),
                    () -> {
                      String json = Files.readString(file);
                      String workflowId = RecordedHistories.workflowId(file);
                      WorkflowReplayer.replayWorkflowExecution(
                          WorkflowExecutionHistory.fromJson(json, workflowId),
                          ExperimentWorkflowImpl.class,
                          TrialWorkflowImpl.class,
                          PipelineWorkflowImpl.class,
                          InferenceWorkflowImpl.class);
                    }));
  }
}
