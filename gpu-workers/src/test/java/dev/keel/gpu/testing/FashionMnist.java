package dev.keel.gpu.testing;

import dev.keel.api.v1.TableRef;
import dev.keel.etl.fashionmnist.IdxFiles;
import dev.keel.tables.dataset.DatasetReader;
import dev.keel.tables.dataset.LabeledImages;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** The real Fashion-MNIST IDX files, read once per JVM, served as a {@link DatasetReader}. */
public final class FashionMnist {
  public static final Path DIR = Path.of("/usr/share/datasets/fashion-mnist");
  public static final TableRef TABLE =
      TableRef.newBuilder().setUri("file:///test/tables/fashion_mnist").setVersion(0).build();

  private static LabeledImages train;
  private static LabeledImages test;

  private FashionMnist() {}

  public static synchronized LabeledImages train() {
    if (train == null) {
      train = read("train");
    }
    return train;
  }

  public static synchronized LabeledImages test() {
    if (test == null) {
      test = read("t10k");
    }
    return test;
  }

  /** "train" → train files, "test" → t10k files; any other table or split is refused. */
  public static DatasetReader reader() {
    return (table, split) -> {
      if (!table.getUri().equals(TABLE.getUri())) {
        throw new IllegalArgumentException(
            "table " + table.getUri() + " version " + table.getVersion() + " does not exist");
      }
      return switch (split) {
        case "train" -> train();
        case "test" -> test();
        default -> throw new IllegalArgumentException("no split " + split);
      };
    };
  }

  private static LabeledImages read(String prefix) {
    try {
      return IdxFiles.read(DIR, prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
