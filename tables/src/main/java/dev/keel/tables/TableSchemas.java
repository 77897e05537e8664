package dev.keel.tables;

import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;

/** Schemas of Keel's Delta tables. */
public final class TableSchemas {
  private TableSchemas() {}

  /**
   * Labeled images: {@code id} long, {@code label} int, {@code split} string ("train"/"test"),
   * {@code image} binary (rows*cols bytes, row-major, one unsigned byte per pixel). The image
   * column is last so that statistics cover only the first three columns.
   */
  public static final StructType LABELED_IMAGES =
      new StructType()
          .add("id", LongType.LONG, false)
          .add("label", IntegerType.INTEGER, false)
          .add("split", StringType.STRING, false)
          .add("image", BinaryType.BINARY, false);

  /** Table property holding the image shape of a labeled-images table, e.g. {@code 28x28}. */
  public static final String IMAGE_SHAPE_PROPERTY = "keel.image.shape";

  /**
   * Batch-inference output: {@code id} long, {@code predicted_label} int, {@code score} double,
   * {@code checkpoint_id} string, {@code source_table_version} long.
   */
  public static final StructType PREDICTIONS =
      new StructType()
          .add("id", LongType.LONG, false)
          .add("predicted_label", IntegerType.INTEGER, false)
          .add("score", DoubleType.DOUBLE, false)
          .add("checkpoint_id", StringType.STRING, true)
          .add("source_table_version", LongType.LONG, false);
}
