package dev.keel.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.gpu.model.ModelRegistry;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.tables.dataset.LabeledImages;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Scoring on a {@link ScoringThreads} thread gives the predictions of the same loop on the caller's
 * thread, bit for bit; successive partitions reuse one long-lived thread (whose OpenMP team is set up
 * once) and concurrent ones get threads of their own, so activity slots still score in parallel.
 */
class ScoringThreadsScoreAsTheDirectLoopTest {

  @Test
  void predictionsOnTheScoringThreadEqualTheDirectLoop() throws Exception {
    try (InferenceTestBed bed = new InferenceTestBed()) {
      LabeledImages images = InferenceTestBed.testImages();
      try (CheckpointPredictor predictor =
          CheckpointPredictor.open(InferenceTestBed.checkpoint().getUri(), ModelRegistry.withBuiltIns(), 1)) {
        Predictions direct = predictor.predict(images);
        Predictions scored = ScoringThreads.call(() -> predictor.predict(images));
        assertArrayEquals(direct.labels(), scored.labels());
        assertArrayEquals(direct.scores(), scored.scores()); // exact: same math, same thread count
      }
    }
  }

  @Test
  void successiveCallsReuseOneLongLivedThreadThatIsNotTheCallers() throws Exception {
    Thread first = ScoringThreads.call(Thread::currentThread);
    int created = ScoringThreads.created();
    Thread second = ScoringThreads.call(Thread::currentThread);
    assertSame(first, second);
    assertNotSame(Thread.currentThread(), first);
    assertTrue(first.getName().startsWith("keel-scoring-"), first.getName());
    assertTrue(first.isAlive());
    assertTrue(created == ScoringThreads.created(), "no thread was started for the second call");
  }

  @Test
  void concurrentCallsRunOnThreadsOfTheirOwn() throws Exception {
    // each call waits until both are running: one shared thread would leave the latch at 1
    CountDownLatch both = new CountDownLatch(2);
    java.util.concurrent.Callable<Thread> meet = () -> {
      both.countDown();
      if (!both.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the other call never started: calls were serialized");
      }
      return Thread.currentThread();
    };
    CompletableFuture<Thread> a = CompletableFuture.supplyAsync(() -> call(meet));
    CompletableFuture<Thread> b = CompletableFuture.supplyAsync(() -> call(meet));
    assertNotEquals(a.get(), b.get());
  }

  @Test
  void theWorksExceptionReachesTheCaller() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ScoringThreads.call(() -> {
          throw new IllegalArgumentException("does not fit");
        }));
    assertTrue(e.getMessage().contains("does not fit"));
  }

  private static Thread call(java.util.concurrent.Callable<Thread> work) {
    try {
      return ScoringThreads.call(work);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
