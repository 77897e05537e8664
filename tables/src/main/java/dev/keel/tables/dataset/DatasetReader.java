package dev.keel.tables.dataset;

import dev.keel.api.v1.TableRef;

/** Reads one split of a pinned table version into memory for training or inference. */
public interface DatasetReader {

  /** @throws IllegalArgumentException naming the table and version when they do not exist */
  LabeledImages read(TableRef table, String split);
}
