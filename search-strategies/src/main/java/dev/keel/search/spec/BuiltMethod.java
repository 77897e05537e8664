package dev.keel.search.spec;

import dev.keel.search.core.SearchMethod;

/** A search method ready to run and how many of its trials may train at once. */
public record BuiltMethod(SearchMethod method, int maxConcurrentTrials) {
  public BuiltMethod {
    if (maxConcurrentTrials < 1) {
      throw new IllegalArgumentException(
          "maxConcurrentTrials must be >= 1, got " + maxConcurrentTrials);
    }
  }
}
