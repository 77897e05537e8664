package dev.keel.search.space;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Value;
import dev.keel.search.core.Prng;
import java.util.SortedMap;

/**
 * Picks the hyperparameters of new trials, possibly learning from results: {@link #observe} is told
 * every validation (score: smaller is better) at its training length.
 */
public interface HyperparameterSampler {
  SortedMap<String, Value> next(Prng rng);

  void observe(SortedMap<String, Value> hparams, long units, double score);

  /** Forgets a trial's observations (its hyperparameters were invalid). */
  void forget(SortedMap<String, Value> hparams);

  JsonNode saveState();

  void loadState(JsonNode state);
}
