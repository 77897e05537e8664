package dev.keel.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.InputStatistics;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.dataset.LabeledImages;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The partitioned workflow predicts what one loop over the whole split with the same checkpoint
 * predicts: the same rows, the same label per id, the same accuracy overall and per class; its
 * input statistics are the per-pixel mean and variance and the predicted-label histogram of those
 * rows.
 */
class PartitionedScoringMatchesTheSingleLoopScorerTest {

  /**
   * With two threads a CPU worker scores a partition's batches on two one-thread models at once
   * (lanes); batches start at whole multiples of 1,000 rows, so every row gets the very score of
   * the one-thread loop.
   */
  @Test
  void twoLanesScoreEveryRowAsTheOneThreadLoop() throws Exception {
    try (InferenceTestBed bed = new InferenceTestBed()) {
      long before = InferenceActivitiesImpl.partitionsScoredInLanes();
      // partitions of 1,200 and 800 rows: the first is two batches of up to 1,000, so two lanes
      InferenceResult result =
          bed.run("lanes", bed.request("lanes").setThreads(2).setMaxPartitionRows(2000).build());
      assertEquals(
          before + 1,
          InferenceActivitiesImpl.partitionsScoredInLanes(),
          "the 1,200-row partition ran in lanes");
      LabeledImages split = new DeltaDatasetReader().read(InferenceTestBed.source(), "test");
      Predictions single;
      try (CheckpointPredictor predictor =
          CheckpointPredictor.open(
              InferenceTestBed.checkpoint().getUri(), ModelZoo.withBuiltIns(), 1)) {
        single = predictor.predict(split);
      }
      assertEquals(single.accuracy(split.labels()), result.getAccuracy(), 1e-12);
      Map<Long, Integer> expectedLabels = new HashMap<>();
      Map<Long, Double> expectedScores = new HashMap<>();
      for (int i = 0; i < split.size(); i++) {
        expectedLabels.put(split.ids()[i], single.labels()[i]);
        expectedScores.put(split.ids()[i], (double) single.scores()[i]);
      }
      Map<Long, Integer> labels = new HashMap<>();
      Map<Long, Double> scores = new HashMap<>();
      for (Map<String, Object> r : InferenceTestBed.rows(bed.table("lanes"))) {
        labels.put((Long) r.get("id"), ((Number) r.get("predicted_label")).intValue());
        scores.put((Long) r.get("id"), ((Number) r.get("score")).doubleValue());
      }
      assertEquals(expectedLabels, labels);
      assertEquals(expectedScores, scores, "bit for bit");
    }
  }

  @Test
  void sameRowsLabelsAccuracyPerClassAccuracyAndStatistics() throws Exception {
    try (InferenceTestBed bed = new InferenceTestBed()) {
      InferenceResult result = bed.run("match", bed.request("match").build());

      LabeledImages split = new DeltaDatasetReader().read(InferenceTestBed.source(), "test");
      Predictions single;
      try (CheckpointPredictor predictor =
          CheckpointPredictor.open(
              InferenceTestBed.checkpoint().getUri(), ModelZoo.withBuiltIns(), 1)) {
        single = predictor.predict(split);
      }
      assertEquals(split.size(), result.getRows());
      assertEquals(single.accuracy(split.labels()), result.getAccuracy(), 1e-12);

      Map<Long, Integer> expected = new HashMap<>();
      for (int i = 0; i < split.size(); i++) {
        expected.put(split.ids()[i], single.labels()[i]);
      }
      List<Map<String, Object>> rows = InferenceTestBed.rows(bed.table("match"));
      Map<Long, Integer> written = new HashMap<>();
      for (Map<String, Object> r : rows) {
        written.put((Long) r.get("id"), ((Number) r.get("predicted_label")).intValue());
      }
      assertEquals(expected, written);

      InputStatistics stats = result.getStatistics();
      int d = split.imageBytes();
      double[] mean = new double[d];
      double[] variance = new double[d];
      for (int j = 0; j < d; j++) {
        double s = 0;
        for (int i = 0; i < split.size(); i++) {
          s += split.pixels()[i * d + j] & 0xff;
        }
        mean[j] = s / split.size();
        double v = 0;
        for (int i = 0; i < split.size(); i++) {
          double x = (split.pixels()[i * d + j] & 0xff) - mean[j];
          v += x * x;
        }
        variance[j] = v / split.size();
      }
      assertEquals(split.size(), stats.getRows());
      assertArrayEquals(
          mean, stats.getMeanList().stream().mapToDouble(Double::doubleValue).toArray(), 1e-9);
      assertArrayEquals(
          variance,
          stats.getVarianceList().stream().mapToDouble(Double::doubleValue).toArray(),
          1e-6);
      long[] histogram = new long[stats.getPredictedLabelCountsCount()];
      for (int label : single.labels()) {
        histogram[label]++;
      }
      assertArrayEquals(
          histogram,
          stats.getPredictedLabelCountsList().stream().mapToLong(Long::longValue).toArray());

      // per class: the rows of each true label and how many of them the single loop got right
      long[] classRows = new long[10];
      long[] classCorrect = new long[10];
      for (int i = 0; i < split.size(); i++) {
        classRows[split.labels()[i]]++;
        classCorrect[split.labels()[i]] += single.labels()[i] == split.labels()[i] ? 1 : 0;
      }
      assertEquals(10, result.getClassesCount());
      for (int l = 0; l < 10; l++) {
        var c = result.getClasses(l);
        assertEquals(l, c.getLabel());
        assertEquals(classRows[l], c.getRows(), "rows of label " + l);
        assertEquals(classCorrect[l], c.getCorrect(), "correct of label " + l);
        assertEquals((double) classCorrect[l] / classRows[l], c.getAccuracy(), 1e-12);
      }
    }
  }
}
