package dev.keel.workflows.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Value;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrialCommand;
import dev.keel.api.v1.TrialReport;
import dev.keel.api.v1.TrialRequest;
import dev.keel.search.Close;
import dev.keel.search.Create;
import dev.keel.search.ExitReason;
import dev.keel.search.Operation;
import dev.keel.search.Searcher;
import dev.keel.search.Shutdown;
import dev.keel.search.ValidateAfter;
import dev.keel.search.WarmStart;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The searcher's operations become trial starts and commands, and trial reports reach the searcher;
 * no Temporal needed.
 */
class SearcherDriverTurnsOperationsIntoTrialWorkTest {
  private final ScriptedSearcher searcher = new ScriptedSearcher();
  private final RecordingTrialWorkflows workflows = new RecordingTrialWorkflows();
  private final TrialBook book = new TrialBook(true);
  private final ExperimentControl control = new ExperimentControl();
  private final CatalogBuffer catalog = new CatalogBuffer("exp", null, 1000, () -> 0L);
  private final SearcherDriver driver =
      new SearcherDriver(
          searcher,
          new SearcherDriver.TrialSetup(
              "exp",
              ExperimentConfig.getDefaultInstance(),
              TableRef.newBuilder().setUri("t").build(),
              600,
              60,
              Optional.empty()),
          book,
          control,
          catalog,
          workflows);

  @Test
  void aTrialStartsAtItsFirstValidateAfterWithThatTargetAndIsAcknowledged() {
    searcher.initial(create(1), validateAfter(1, 8));
    driver.begin();
    driver.applyOperations();
    assertEquals(List.of("start exp/trial-1"), workflows.calls);
    TrialRequest r = workflows.started.get(0);
    assertEquals(TrainingLength.batches(8).toProto(), r.getTargetLength());
    assertEquals(600, r.getTrainRows());
    assertFalse(r.getStartPaused());
    assertEquals(List.of("created 1"), searcher.events);
    assertEquals(8, book.get(1).getTargetLength().getBatches());
    assertEquals("trials", catalog.pending().get(0).getKind());
  }

  @Test
  void laterValidateAfterTrainsFurtherAndCloseClosesThenShutdownEndsTheSearch() {
    searcher.initial(create(1), validateAfter(1, 8));
    driver.begin();
    driver.applyOperations();
    searcher.next(validateAfter(1, 16));
    report(validation(1, 8));
    assertEquals(16, book.get(1).getTargetLength().getBatches());
    searcher.next(new Close(1));
    report(validation(1, 16));
    assertTrue(book.anyBusy(), "asked to close");
    searcher.next(new Shutdown());
    report(
        TrialReport.newBuilder()
            .setTrialId(1)
            .setClosed(TrialReport.Closed.getDefaultInstance())
            .build());
    assertEquals(
        List.of("start exp/trial-1", "exp/trial-1 TRAIN_TO_LENGTH", "exp/trial-1 CLOSE"),
        workflows.calls);
    assertEquals(
        List.of("created 1", "validated 1 at 8", "validated 1 at 16", "closed 1"), searcher.events);
    assertTrue(driver.searchOver());
    assertEquals(1.0, driver.progress());
  }

  @Test
  void aForkStartsFromItsParentsCheckpointAndAPausedExperimentStartsItPaused() {
    searcher.initial(create(1), validateAfter(1, 8));
    driver.begin();
    driver.applyOperations();
    searcher.next(
        new Create(2, new TreeMap<>(), Optional.of(new WarmStart(1, TrainingLength.batches(8)))),
        validateAfter(2, 16));
    control.pause();
    control.apply(ignoringEffects());
    report(validation(1, 8));
    TrialRequest fork = workflows.started.get(1);
    assertEquals("1-8", fork.getStartFrom().getUuid());
    assertEquals(1, fork.getParentTrialId());
    assertTrue(fork.getStartPaused());
    assertEquals("1-8", book.get(2).getSourceCheckpoint().getUuid());
  }

  @Test
  void aKilledExperimentStartsNothingAndTellsTheSearcherNothing() {
    searcher.initial(create(1), validateAfter(1, 8), create(2), validateAfter(2, 8));
    driver.begin();
    control.kill();
    driver.applyOperations();
    report(validation(1, 8));
    assertTrue(workflows.calls.isEmpty());
    assertTrue(searcher.events.isEmpty());
    assertTrue(driver.searchOver(), "nothing started, nothing left to wait for");
  }

  @Test
  void reportsDeferredWhileDrainingReachTheSearcherOnlyInTheNextRun() {
    searcher.initial(create(1), validateAfter(1, 8));
    driver.begin();
    driver.applyOperations();
    TrialReport v = validation(1, 8);
    book.record(v, catalog);
    driver.defer(v);
    assertEquals(List.of("created 1"), searcher.events);
    assertEquals(List.of(v), driver.deferred());
    driver.resume(driver.deferred());
    assertEquals(List.of("created 1", "validated 1 at 8"), searcher.events);
  }

  @Test
  void commandsSkipTrialsThatEndedAndExitsReachTheSearcherWithTheirReason() {
    searcher.initial(create(1), validateAfter(1, 8));
    driver.begin();
    driver.applyOperations();
    report(
        TrialReport.newBuilder()
            .setTrialId(1)
            .setExit(TrialReport.Exit.newBuilder().setReason(TrialReport.Exit.Reason.INVALID_HP))
            .build());
    driver.commandAll(TrialCommand.newBuilder().setPause(true).build());
    assertEquals(List.of("start exp/trial-1"), workflows.calls);
    assertEquals(List.of("created 1", "exited 1 INVALID_HP"), searcher.events);
  }

  private void report(TrialReport r) {
    book.record(r, catalog);
    driver.tell(r);
  }

  private static Create create(long id) {
    return new Create(
        id, new TreeMap<>(Map.of("lr", Value.newBuilder().setNumberValue(0.1).build())));
  }

  private static ValidateAfter validateAfter(long id, long batches) {
    return new ValidateAfter(id, TrainingLength.batches(batches));
  }

  private static TrialReport validation(long id, long batches) {
    return TrialReport.newBuilder()
        .setTrialId(id)
        .setValidation(
            TrialReport.Validation.newBuilder()
                .setLength(TrainingLength.batches(batches).toProto())
                .setMetric(1.0 / batches)
                .setCheckpoint(
                    CheckpointRef.newBuilder().setUuid(id + "-" + batches).setBatches(batches)))
        .build();
  }

  private static ExperimentControl.Effects ignoringEffects() {
    return new ExperimentControl.Effects() {
      @Override
      public void commandAll(TrialCommand command) {}

      @Override
      public void command(long trialId, TrialCommand command) {}

      @Override
      public void forgetUnstartedTrials() {}

      @Override
      public void stateChanged() {}
    };
  }

  private static final class RecordingTrialWorkflows implements TrialWorkflows {
    final List<String> calls = new ArrayList<>();
    final List<TrialRequest> started = new ArrayList<>();

    @Override
    public void start(String workflowId, TrialRequest request, String summary) {
      calls.add("start " + workflowId);
      started.add(request);
    }

    @Override
    public void command(String workflowId, TrialCommand command) {
      calls.add(workflowId + " " + command.getCommandCase());
    }
  }

  /** Answers each event with the next scripted batch of operations, and notes the events. */
  private static final class ScriptedSearcher implements Searcher {
    final List<String> events = new ArrayList<>();
    private final Deque<List<Operation>> answers = new ArrayDeque<>();
    private List<Operation> initial = List.of();
    private boolean shutdown;

    void initial(Operation... ops) {
      initial = List.of(ops);
    }

    void next(Operation... ops) {
      answers.add(List.of(ops));
    }

    private List<Operation> answer(String event) {
      events.add(event);
      List<Operation> ops = answers.isEmpty() ? List.of() : answers.poll();
      shutdown |= ops.stream().anyMatch(o -> o instanceof Shutdown);
      return ops;
    }

    @Override
    public String name() {
      return "scripted";
    }

    @Override
    public List<Operation> initialOperations() {
      return initial;
    }

    @Override
    public List<Operation> trialCreated(long trialId) {
      return answer("created " + trialId);
    }

    @Override
    public List<Operation> validationCompleted(long trialId, double metric, TrainingLength length) {
      return answer("validated " + trialId + " at " + length.units());
    }

    @Override
    public List<Operation> trialClosed(long trialId) {
      return answer("closed " + trialId);
    }

    @Override
    public List<Operation> trialExitedEarly(long trialId, ExitReason reason) {
      return answer("exited " + trialId + " " + reason);
    }

    @Override
    public double progress() {
      return shutdown ? 1.0 : 0.5;
    }

    @Override
    public String trialGroup(long trialId) {
      return "";
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public String snapshot() {
      return "{}";
    }
  }
}
