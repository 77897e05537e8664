package dev.keel.etl.tabular;

import dev.keel.etl.BadRecords;
import dev.keel.etl.HashSplit;
import dev.keel.etl.source.SourceFiles;
import java.nio.charset.Charset;
import java.util.List;

/**
 * Reads a tabular source's files into labeled rows ({@link CsvSource#read}, {@link
 * ParquetSource#read}): the label column(s), the feature columns (all numeric ones when empty), the
 * text encoding, the split of each row and where bad records go.
 */
@FunctionalInterface
public interface TabularReader {
  TabularRows read(
      List<SourceFiles.Entry> files,
      LabelColumns labelColumns,
      List<String> featureColumns,
      Charset charset,
      String encoding,
      HashSplit hash,
      BadRecords bad);
}
