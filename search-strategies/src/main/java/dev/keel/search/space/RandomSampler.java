package dev.keel.search.space;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Value;
import dev.keel.search.core.Prng;
import dev.keel.search.core.StateCodec;
import java.util.SortedMap;

/** Independent draws from the prior; learns nothing. */
public final class RandomSampler implements HyperparameterSampler {
  private final HyperparameterSpace space;

  public RandomSampler(HyperparameterSpace space) {
    this.space = space;
  }

  @Override
  public SortedMap<String, Value> next(Prng rng) {
    return space.sample(rng);
  }

  @Override
  public void observe(SortedMap<String, Value> hparams, long units, double score) {}

  @Override
  public void forget(SortedMap<String, Value> hparams) {}

  @Override
  public JsonNode saveState() {
    return StateCodec.object();
  }

  @Override
  public void loadState(JsonNode state) {}
}
