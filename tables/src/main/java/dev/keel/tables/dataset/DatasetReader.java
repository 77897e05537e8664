package dev.keel.tables.dataset;

import dev.keel.api.v1.TableRef;

/** Reads one split of a pinned table version into memory for training or inference. */
public interface DatasetReader {

  /**
   * The split as images or feature vectors, whichever the table's schema holds.
   *
   * @throws IllegalArgumentException naming the table and version when they do not exist or hold
   *     neither kind
   */
  LabeledExamples readExamples(TableRef table, String split);

  /**
   * The split of a labeled-images table.
   *
   * @throws IllegalArgumentException naming the table when it does not exist or holds no images
   */
  default LabeledImages read(TableRef table, String split) {
    LabeledExamples examples = readExamples(table, split);
    if (examples instanceof LabeledImages images) {
      return images;
    }
    throw new IllegalArgumentException(
        "table "
            + table.getUri()
            + " v"
            + table.getVersion()
            + " holds "
            + examples.describe()
            + ", not images");
  }
}
