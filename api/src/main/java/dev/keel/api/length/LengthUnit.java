package dev.keel.api.length;

import java.util.Locale;

/**
 * The unit of a {@link TrainingLength}. Every length of one experiment is in the unit of its {@code
 * searcher.max_length}; only the trainer, which knows batch size and row count, turns one into
 * batches.
 */
public enum LengthUnit {
  BATCHES,
  RECORDS,
  EPOCHS;

  /**
   * The unit's name as in configs and messages: {@code batches}, {@code records}, {@code epochs}.
   */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
