package dev.keel.search;

import com.google.protobuf.Value;
import java.util.Collections;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Start trial {@code trialId} with these hyperparameters. With a {@link WarmStart} (population
 * based training) the trial starts from the checkpoint its parent trial had at {@code
 * warmStart.parentLength()}, and its lengths count the inherited training.
 */
public record Create(long trialId, SortedMap<String, Value> hparams, Optional<WarmStart> warmStart)
    implements Operation {
  public Create {
    hparams = Collections.unmodifiableSortedMap(new TreeMap<>(hparams));
  }

  public Create(long trialId, SortedMap<String, Value> hparams) {
    this(trialId, hparams, Optional.empty());
  }
}
