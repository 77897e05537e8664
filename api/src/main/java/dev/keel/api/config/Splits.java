package dev.keel.api.config;

/**
 * The splits of Keel's tables: the {@code split} column's values, the sub-folders of an image
 * folder and the names configs use ({@code inference.split}, {@code drift.reference_split}). A
 * trial trains and validates on rows of {@link #TRAIN}; scoring and comparisons default to {@link
 * #TEST}.
 */
public final class Splits {
  public static final String TRAIN = "train";
  public static final String TEST = "test";

  private Splits() {}

  /** Whether a table or source may hold this split. */
  public static boolean known(String split) {
    return TRAIN.equals(split) || TEST.equals(split);
  }
}
