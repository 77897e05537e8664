package dev.keel.api.config;

import dev.keel.api.v1.DataSource;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What Keel knows of each format a pipeline's {@code source.format} may name. The names are the
 * proto enum {@link DataSource.Format}'s (the contract); this adds what the validator, the ETL's
 * decoder, the submission checks and the pipeline's shape check need, so a new format is a proto
 * value, a constant here (a test pairs them) and its decoder (the ETL's exhaustive switch makes the
 * compiler ask for it).
 */
public enum SourceFormat {
  /** The Fashion-MNIST IDX files ({@code source.uri} optional: the packaged data set). */
  FASHION_MNIST(DataSource.Format.fashion_mnist, Rows.IMAGES, false),
  /** One sub-folder of images per class. */
  IMAGE_FOLDER(DataSource.Format.image_folder, Rows.IMAGES, true),
  CSV(DataSource.Format.csv, Rows.FEATURES, true),
  PARQUET(DataSource.Format.parquet, Rows.FEATURES, true);

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

  private final DataSource.Format proto;
  private final Rows rows;
  private final boolean needsUri;

  SourceFormat(DataSource.Format proto, Rows rows, boolean needsUri) {
    this.proto = proto;
    this.rows = rows;
    this.needsUri = needsUri;
  }

  /** The contract's value. */
  public DataSource.Format proto() {
    return proto;
  }

  /** How configs, requests and tables spell it. */
  public String configName() {
    return proto.name();
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

  /** The format a request names; empty when unset or a number this build does not know. */
  public static Optional<SourceFormat> of(DataSource.Format format) {
    return Arrays.stream(values()).filter(f -> f.proto == format).findFirst();
  }

  /** Every format's name, sorted and separated by {@code |}: {@code csv|fashion_mnist|…}. */
  public static String expected() {
    return Arrays.stream(values())
        .map(SourceFormat::configName)
        .sorted()
        .collect(Collectors.joining("|"));
  }
}
