package dev.keel.search.core;

import com.google.protobuf.Value;
import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import java.util.SortedMap;

/** What a {@link SearchMethod} may do and know while it handles one event. */
public final class SearchContext {
  private final SearchEngine engine;

  SearchContext(SearchEngine engine) {
    this.engine = engine;
  }

  /**
   * Creates a trial and returns its id; request its first training with {@link #validateAfter}
   * right away.
   */
  public long create(SortedMap<String, Value> hparams) {
    return engine.createTrial(hparams, 0, 0);
  }

  /** Creates a trial that starts from {@code parentTrialId}'s checkpoint at {@code parentUnits}. */
  public long createFrom(SortedMap<String, Value> hparams, long parentTrialId, long parentUnits) {
    return engine.createTrial(hparams, parentTrialId, parentUnits);
  }

  /**
   * Asks the trial to train until {@code units} (total) and validate. Queued while all slots are
   * busy.
   */
  public void validateAfter(long trialId, long units) {
    engine.requestValidation(trialId, units);
  }

  public void close(long trialId) {
    engine.requestClose(trialId);
  }

  /** Slots neither training nor promised to queued work: how many new trials could start now. */
  public int freeSlots() {
    return engine.freeSlots();
  }

  public long maxLength() {
    return engine.maxLength().units();
  }

  public LengthUnit unit() {
    return engine.maxLength().unit();
  }

  public TrainingLength length(long units) {
    return new TrainingLength(units, unit());
  }

  public Prng rng() {
    return engine.rng();
  }

  public SortedMap<String, Value> hparams(long trialId) {
    return engine.hparams(trialId);
  }

  /** How far the trial has trained, as of its last validation (its warm start included). */
  public long trained(long trialId) {
    return engine.trained(trialId);
  }

  /** True once the trial closed, exited, or was asked to close. */
  public boolean isFinished(long trialId) {
    return engine.isFinished(trialId);
  }
}
