package dev.keel.workflows;

import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.common.SearchAttributeKey;
import java.util.Map;

/**
 * Keel's search attributes, so a cluster's visibility store and the Temporal web UI can filter runs
 * ({@code KeelState = 'ACTIVE' AND KeelBestMetric > 0.9}). A worker registers them at start: an
 * upsert of an unregistered attribute fails the workflow task.
 */
public final class KeelSearchAttributes {
  public static final SearchAttributeKey<String> EXPERIMENT = SearchAttributeKey.forKeyword("KeelExperiment");
  public static final SearchAttributeKey<String> STATE = SearchAttributeKey.forKeyword("KeelState");
  public static final SearchAttributeKey<Double> BEST_METRIC = SearchAttributeKey.forDouble("KeelBestMetric");
  public static final SearchAttributeKey<Long> DATA_VERSION = SearchAttributeKey.forLong("KeelDataVersion");

  /** Name and type of each, for {@code OperatorService.AddSearchAttributes}. */
  public static final Map<String, IndexedValueType> ALL = Map.of(
      EXPERIMENT.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      STATE.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      BEST_METRIC.getName(), IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
      DATA_VERSION.getName(), IndexedValueType.INDEXED_VALUE_TYPE_INT);

  private KeelSearchAttributes() {}
}
