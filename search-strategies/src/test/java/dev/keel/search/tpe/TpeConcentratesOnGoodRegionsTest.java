package dev.keel.search.tpe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Value;
import dev.keel.search.Scenarios;
import dev.keel.search.core.Prng;
import dev.keel.search.space.HyperparameterSampler;
import dev.keel.search.space.HyperparameterSpace;
import dev.keel.search.space.RandomSampler;
import java.util.List;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/** TPE learns where good results are, for every hyperparameter type, and starts out random. */
class TpeConcentratesOnGoodRegionsTest {
  private static final HyperparameterSpace SPACE =
      HyperparameterSpace.of(Scenarios.ORACLE.hyperparameters());

  private static double finalLoss(SortedMap<String, Value> hp) {
    return Scenarios.ORACLE.expected(hp, 2560);
  }

  private static double meanLossOfNextSamples(HyperparameterSampler sampler, Prng rng) {
    double sum = 0;
    for (int i = 0; i < 200; i++) {
      sum += finalLoss(sampler.next(rng));
    }
    return sum / 200;
  }

  @Test
  void afterObservationsTpeSamplesBetterConfigurationsThanRandom() {
    TpeSampler tpe = new TpeSampler(SPACE, 10, 0.25, 24);
    Prng rng = new Prng(5);
    for (int i = 0; i < 150; i++) {
      SortedMap<String, Value> hp = SPACE.sample(rng);
      tpe.observe(hp, 2560, finalLoss(hp));
    }
    double tpeMean = meanLossOfNextSamples(tpe, new Prng(6));
    double randomMean = meanLossOfNextSamples(new RandomSampler(SPACE), new Prng(6));
    assertTrue(tpeMean < 0.7 * randomMean, "tpe " + tpeMean + " vs random " + randomMean);
  }

  @Test
  void everySampleIsInsideTheSpace() {
    TpeSampler tpe = new TpeSampler(SPACE, 5, 0.25, 24);
    Prng rng = new Prng(8);
    for (int i = 0; i < 300; i++) {
      SortedMap<String, Value> hp = tpe.next(rng);
      double lr = hp.get("lr").getNumberValue();
      double width = hp.get("width").getNumberValue();
      double dropout = hp.get("dropout").getNumberValue();
      assertTrue(lr >= 1e-5 * 0.999999 && lr <= 1.0, "lr " + lr);
      assertTrue(width >= 16 && width <= 256 && width == Math.rint(width), "width " + width);
      assertTrue(dropout >= 0 && dropout <= 0.6, "dropout " + dropout);
      assertTrue(List.of("sgd", "adam", "rmsprop").contains(hp.get("optimizer").getStringValue()));
      tpe.observe(hp, 100, finalLoss(hp));
    }
  }

  @Test
  void beforeEnoughObservationsItSamplesLikeThePrior() {
    TpeSampler tpe = new TpeSampler(SPACE, 10, 0.25, 24);
    assertEquals(new RandomSampler(SPACE).next(new Prng(1)), tpe.next(new Prng(1)));
  }

  @Test
  void itModelsTheLongestLengthWithEnoughResults() {
    TpeSampler a = new TpeSampler(SPACE, 3, 0.25, 24);
    TpeSampler b = new TpeSampler(SPACE, 3, 0.25, 24);
    Prng rng = new Prng(2);
    for (int i = 0; i < 20; i++) {
      SortedMap<String, Value> hp = SPACE.sample(rng);
      a.observe(hp, 10, finalLoss(hp));
      b.observe(hp, 10, finalLoss(hp));
    }
    // two results at a longer length are too few to model: b still follows the 10-unit results
    SortedMap<String, Value> x = SPACE.sample(rng);
    b.observe(x, 40, 0.0);
    b.observe(SPACE.sample(rng), 40, 1.0);
    assertEquals(a.next(new Prng(3)), b.next(new Prng(3)));
  }
}
