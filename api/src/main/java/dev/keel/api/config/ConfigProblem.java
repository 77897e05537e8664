package dev.keel.api.config;

/** One thing wrong with a config, at a field path such as {@code searcher.max_trials}. */
public record ConfigProblem(String path, String message) {

  @Override
  public String toString() {
    return (path.isEmpty() ? "<root>" : path) + ": " + message;
  }
}
