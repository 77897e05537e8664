package dev.keel.tables;

import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;

/** Schemas of Keel's Delta tables. */
public final class TableSchemas {
  private TableSchemas() {}

  /**
   * Labeled images: {@code id} long, {@code label} int, {@code split} string ("train"/"test"),
   * {@code image} binary (channels*rows*cols bytes: one row-major plane per channel, one unsigned
   * byte per pixel; the shape in {@link #IMAGE_SHAPE_PROPERTY}). The image column is last so that
   * statistics cover only the first three columns.
   */
  public static final StructType LABELED_IMAGES =
      new StructType()
          .add("id", LongType.LONG, false)
          .add("label", IntegerType.INTEGER, false)
          .add("split", StringType.STRING, false)
          .add("image", BinaryType.BINARY, false);

  /**
   * Table property holding the image shape of a labeled-images table: {@code HxW} for grey-scale
   * (e.g. {@code 28x28}), {@code CxHxW} for more channels (e.g. {@code 3x32x32}).
   */
  public static final String IMAGE_SHAPE_PROPERTY = "keel.image.shape";

  /**
   * Labeled feature vectors (tabular data from CSV or Parquet): {@code id} long, {@code label} int,
   * {@code split} string, {@code features} array of non-null floats, every row the same length. The
   * feature columns' names, in order, are in {@link #FEATURE_NAMES_PROPERTY}.
   */
  public static final StructType LABELED_FEATURES =
      new StructType()
          .add("id", LongType.LONG, false)
          .add("label", IntegerType.INTEGER, false)
          .add("split", StringType.STRING, false)
          .add("features", new ArrayType(FloatType.FLOAT, false), false);

  /**
   * Feature vectors with a value to predict (regression, {@code source.task: regression}): as
   * {@link #LABELED_FEATURES} with a float {@code label}; {@link #TASK_PROPERTY} is {@code
   * regression}.
   */
  public static final StructType VALUED_FEATURES =
      new StructType()
          .add("id", LongType.LONG, false)
          .add("label", FloatType.FLOAT, false)
          .add("split", StringType.STRING, false)
          .add("features", new ArrayType(FloatType.FLOAT, false), false);

  /**
   * Feature vectors with several yes/no labels ({@code source.task: multilabel}): as {@link
   * #LABELED_FEATURES} with a {@code label} array of one float target in [0, 1] per label, every
   * row as long as {@link #CLASS_NAMES_PROPERTY} names labels; {@link #TASK_PROPERTY} is {@code
   * multilabel}.
   */
  public static final StructType MULTILABEL_FEATURES =
      new StructType()
          .add("id", LongType.LONG, false)
          .add("label", new ArrayType(FloatType.FLOAT, false), false)
          .add("split", StringType.STRING, false)
          .add("features", new ArrayType(FloatType.FLOAT, false), false);

  /**
   * Table property: what a labeled table's label is, {@code classification} (a class index; the
   * meaning of a table without it), {@code regression} (a float value) or {@code multilabel} (an
   * array of float targets, one per label).
   */
  public static final String TASK_PROPERTY = "keel.task";

  /** Table property: the feature columns of a labeled-features table, comma-separated, in order. */
  public static final String FEATURE_NAMES_PROPERTY = "keel.features.names";

  /**
   * Table property: the class names of any labeled table, comma-separated, label {@code i} being
   * the {@code i}-th (sub-folder names for an image folder, the distinct label values for tabular
   * data).
   */
  public static final String CLASS_NAMES_PROPERTY = "keel.label.classes";

  /**
   * Batch-inference output: {@code id} long, {@code predicted_label} int, {@code score} double,
   * {@code checkpoint_id} string, {@code source_table_version} long, then the lineage of the run:
   * {@code source_table_uri} string, {@code model_version} string (empty when the checkpoint is not
   * a registered model version), {@code run_id} string (one value per inference run; each run is
   * one appended table version).
   */
  public static final StructType PREDICTIONS =
      new StructType()
          .add("id", LongType.LONG, false)
          .add("predicted_label", IntegerType.INTEGER, false)
          .add("score", DoubleType.DOUBLE, false)
          .add("checkpoint_id", StringType.STRING, true)
          .add("source_table_version", LongType.LONG, false)
          .add("source_table_uri", StringType.STRING, false)
          .add("model_version", StringType.STRING, false)
          .add("run_id", StringType.STRING, false);

  /**
   * What readers of a labeled-images table read: its columns, nullable as Kernel hands them over.
   */
  public static final StructType IMAGE_ROWS_READ =
      new StructType()
          .add("id", LongType.LONG)
          .add("label", IntegerType.INTEGER)
          .add("split", StringType.STRING)
          .add("image", BinaryType.BINARY);

  /**
   * What readers of a labeled-features table read: its columns, nullable as Kernel hands them over.
   */
  public static final StructType FEATURE_ROWS_READ =
      new StructType()
          .add("id", LongType.LONG)
          .add("label", IntegerType.INTEGER)
          .add("split", StringType.STRING)
          .add("features", new ArrayType(FloatType.FLOAT, true));

  /** What readers of a {@link #MULTILABEL_FEATURES} table read. */
  public static final StructType MULTILABEL_ROWS_READ =
      new StructType()
          .add("id", LongType.LONG)
          .add("label", new ArrayType(FloatType.FLOAT, true))
          .add("split", StringType.STRING)
          .add("features", new ArrayType(FloatType.FLOAT, true));

  /** What readers of a {@link #VALUED_FEATURES} table read. */
  public static final StructType VALUED_ROWS_READ =
      new StructType()
          .add("id", LongType.LONG)
          .add("label", FloatType.FLOAT)
          .add("split", StringType.STRING)
          .add("features", new ArrayType(FloatType.FLOAT, true));
}
