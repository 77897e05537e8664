package dev.keel.activities;

import dev.keel.api.config.ConfigDefaults;

/**
 * Keel's task queues, in one place so workers and workflows agree: {@code keel-control} (every
 * workflow plus the light catalog and GC activities), {@code keel-etl}, {@code keel-train-<pool>}
 * and {@code keel-infer} (see docs/architecture.md).
 */
public final class TaskQueues {
  public static final String CONTROL = "keel-control";
  public static final String ETL = "keel-etl";
  public static final String INFER = "keel-infer";
  private static final String TRAIN_PREFIX = "keel-train-";

  private TaskQueues() {}

  /** {@code keel-train-cpu}, {@code keel-train-gpu}, ... ; an empty pool means the default pool. */
  public static String train(String pool) {
    return TRAIN_PREFIX + (pool == null || pool.isBlank() ? ConfigDefaults.RESOURCE_POOL : pool);
  }
}
