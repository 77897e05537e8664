package dev.keel.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.tables.dataset.LabeledImages;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Two one-thread lanes sharing one queue score each row of several partitions as one one-thread
 * model looping over each partition does, bit for bit; they load a checkpoint's model once each and
 * keep their threads; a failing partition fails alone.
 */
class ScoringLanesScoreEachRowAsTheOneModelLoopTest {
  private static final String TABLE = "test table v0";

  @Test
  void partitionsQueuedTogetherGetTheOneModelLoopsPredictions() throws Exception {
    try (InferenceTestBed bed = new InferenceTestBed()) {
      LabeledImages images = InferenceTestBed.testImages();
      // 2,000 rows as partitions of 1,300 and 700: batches of 1,000 from each partition's first row
      LabeledImages first = InferenceTestBed.slice(images, 0, 1300);
      LabeledImages second = InferenceTestBed.slice(images, 1300, 700);
      AtomicInteger opened = new AtomicInteger();
      ScoringLanes.Opener opener =
          () -> {
            opened.incrementAndGet();
            return open();
          };
      ScoringLanes lanes = new ScoringLanes(2, 1);
      int threads = ScoringLanes.started();
      lanes.prepare("cnn#1", opener);
      CompletableFuture<Predictions> a = lanes.score("cnn#1", opener, TABLE, first);
      CompletableFuture<Predictions> b = lanes.score("cnn#1", opener, TABLE, second);
      Predictions scoredA = a.get(120, TimeUnit.SECONDS);
      Predictions scoredB = b.get(120, TimeUnit.SECONDS);
      try (CheckpointPredictor loop = open()) {
        Predictions expectedA = loop.predict(first);
        Predictions expectedB = loop.predict(second);
        assertArrayEquals(expectedA.labels(), scoredA.labels());
        assertArrayEquals(expectedA.scores(), scoredA.scores(), "bit for bit");
        assertArrayEquals(expectedB.labels(), scoredB.labels());
        assertArrayEquals(expectedB.scores(), scoredB.scores(), "bit for bit");
      }
      assertEquals(2, opened.get(), "one model per lane, loaded once for both partitions");

      // a third partition: no model loaded again, no thread started
      lanes.score("cnn#1", opener, TABLE, second).get(120, TimeUnit.SECONDS);
      assertEquals(2, opened.get());
      assertEquals(threads, ScoringLanes.started());
    }
  }

  @Test
  void aPartitionThatDoesNotFitFailsAloneWithTheModelsMessage() throws Exception {
    try (InferenceTestBed bed = new InferenceTestBed()) {
      ScoringLanes lanes = new ScoringLanes(2, 1);
      ScoringLanes.Opener opener = ScoringLanesScoreEachRowAsTheOneModelLoopTest::open;
      int n = 1500;
      LabeledImages small =
          new LabeledImages(new long[n], new int[n], new byte[n * 14 * 14], 14, 14);
      CompletableFuture<Predictions> refused = lanes.score("cnn#1", opener, TABLE, small);
      CompletableFuture<Predictions> fine =
          lanes.score(
              "cnn#1",
              opener,
              TABLE,
              InferenceTestBed.slice(InferenceTestBed.testImages(), 0, 300));

      ExecutionException e =
          assertThrows(ExecutionException.class, () -> refused.get(120, TimeUnit.SECONDS));
      InvalidFieldException cause = assertInstanceOf(InvalidFieldException.class, e.getCause());
      assertTrue(cause.getMessage().contains(TABLE), cause.getMessage());
      assertEquals(300, fine.get(120, TimeUnit.SECONDS).labels().length);
    }
  }

  @Test
  void aModelThatCannotBeOpenedFailsThePartitionAndTheNextOneOpensAgain() throws Exception {
    try (InferenceTestBed bed = new InferenceTestBed()) {
      ScoringLanes lanes = new ScoringLanes(1, 1);
      LabeledImages rows = InferenceTestBed.slice(InferenceTestBed.testImages(), 0, 200);
      ScoringLanes.Opener broken =
          () -> {
            throw new IOException("checkpoint gone");
          };
      CompletableFuture<Predictions> failed = lanes.score("gone#1", broken, TABLE, rows);
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> failed.get(120, TimeUnit.SECONDS));
      assertEquals("checkpoint gone", e.getCause().getMessage());
      assertEquals(
          200,
          lanes
              .score("cnn#1", ScoringLanesScoreEachRowAsTheOneModelLoopTest::open, TABLE, rows)
              .get(120, TimeUnit.SECONDS)
              .labels()
              .length);
    }
  }

  private static CheckpointPredictor open() throws IOException {
    return CheckpointPredictor.open(
        InferenceTestBed.checkpoint().getUri(), ModelZoo.withBuiltIns(), 1);
  }
}
