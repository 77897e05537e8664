package dev.keel.workflows;

import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.common.SearchAttributeKey;
import java.util.List;

/**
 * The search attributes Keel's workflows upsert, so that a run can be found with a visibility query
 * ({@code KeelPipeline = 'fashion-mnist-demo' AND KeelStage = 'done'}, {@code KeelState = 'ACTIVE'
 * AND KeelBestMetric > 0.9}) and read in the web UI. They must be registered on the namespace
 * before a workflow upserts them (an unregistered attribute fails the workflow task): the dev
 * server registers them at start, workers at their start.
 */
public final class KeelSearchAttributes {
  /** The pipeline request's name. */
  public static final SearchAttributeKey<String> PIPELINE =
      SearchAttributeKey.forKeyword("KeelPipeline");

  /** A {@code PipelineStage} value's name (validate, etl, search, …, done), or failed. */
  public static final SearchAttributeKey<String> STAGE = SearchAttributeKey.forKeyword("KeelStage");

  /** URI of the Delta table the run trains on. */
  public static final SearchAttributeKey<String> DATA_TABLE =
      SearchAttributeKey.forKeyword("KeelDataTable");

  /** Version of that table. */
  public static final SearchAttributeKey<Long> DATA_VERSION =
      SearchAttributeKey.forLong("KeelDataVersion");

  /** Accuracy on the scored split, once the run is done. */
  public static final SearchAttributeKey<Double> TEST_ACCURACY =
      SearchAttributeKey.forDouble("KeelTestAccuracy");

  /** An experiment's name. */
  public static final SearchAttributeKey<String> EXPERIMENT =
      SearchAttributeKey.forKeyword("KeelExperiment");

  /**
   * An experiment's state: the name of its {@code ExperimentState.State} (ACTIVE, PAUSED,
   * COMPLETED, KILLED or ERRORED).
   */
  public static final SearchAttributeKey<String> STATE = SearchAttributeKey.forKeyword("KeelState");

  /** The best searcher metric an experiment has seen so far. */
  public static final SearchAttributeKey<Double> BEST_METRIC =
      SearchAttributeKey.forDouble("KeelBestMetric");

  /** A key with the names its type has in the API and in {@code temporal server start-dev}. */
  public record Attribute(SearchAttributeKey<?> key, IndexedValueType type, String cliType) {
    public String name() {
      return key.getName();
    }
  }

  public static final List<Attribute> ALL =
      List.of(
          new Attribute(PIPELINE, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, "Keyword"),
          new Attribute(STAGE, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, "Keyword"),
          new Attribute(DATA_TABLE, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, "Keyword"),
          new Attribute(DATA_VERSION, IndexedValueType.INDEXED_VALUE_TYPE_INT, "Int"),
          new Attribute(TEST_ACCURACY, IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE, "Double"),
          new Attribute(EXPERIMENT, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, "Keyword"),
          new Attribute(STATE, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD, "Keyword"),
          new Attribute(BEST_METRIC, IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE, "Double"));

  private KeelSearchAttributes() {}
}
