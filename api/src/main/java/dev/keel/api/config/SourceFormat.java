package dev.keel.api.config;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The formats a pipeline's {@code source.format} may name, listed once: the validator, the ETL's
 * decoder, the submission checks and the pipeline's shape check all read this list, so a new format
 * is a constant here and its decoder (the ETL's exhaustive switch makes the compiler ask for it).
 */
public enum SourceFormat {
  /** The Fashion-MNIST IDX files ({@code source.uri} optional: the packaged data set). */
  FASHION_MNIST("fashion_mnist", Rows.IMAGES, false),
  /** One sub-folder of images per class. */
  IMAGE_FOLDER("image_folder", Rows.IMAGES, true),
  CSV("csv", Rows.FEATURES, true),
  PARQUET("parquet", Rows.FEATURES, true);

  /** What kind of table a format's rows make; the names are {@code TableShape.kind}'s. */
  public enum Rows {
    IMAGES("images"),
    FEATURES("features");

    private final String kind;

    Rows(String kind) {
      this.kind = kind;
    }

    public String kind() {
      return kind;
    }
  }

  private final String configName;
  private final Rows rows;
  private final boolean needsUri;

  SourceFormat(String configName, Rows rows, boolean needsUri) {
    this.configName = configName;
    this.rows = rows;
    this.needsUri = needsUri;
  }

  /** How configs, requests and tables spell it. */
  public String configName() {
    return configName;
  }

  public Rows rows() {
    return rows;
  }

  /** CSV or Parquet: a label column, feature columns and a text encoding. */
  public boolean tabular() {
    return rows == Rows.FEATURES;
  }

  public boolean needsUri() {
    return needsUri;
  }

  /** The format a config names, if it is one. */
  public static Optional<SourceFormat> of(String configName) {
    return Arrays.stream(values()).filter(f -> f.configName.equals(configName)).findFirst();
  }

  /** Every format's name, sorted and separated by {@code |}: {@code csv|fashion_mnist|…}. */
  public static String expected() {
    return Arrays.stream(values())
        .map(SourceFormat::configName)
        .sorted()
        .collect(Collectors.joining("|"));
  }
}
