package dev.keel.gpu.train.metric;

/**
 * What a table's label is, and so which losses and metrics apply: a class index, or a float value
 * (a table written with {@code source.task: regression}).
 */
public enum Task {
  CLASSIFICATION,
  REGRESSION;

  public String spelling() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
