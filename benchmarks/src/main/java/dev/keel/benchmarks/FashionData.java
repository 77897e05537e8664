package dev.keel.benchmarks;

import dev.keel.api.config.SourceFormat;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.storage.StorageRoot;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Puts Fashion-MNIST into the {@code fashion_mnist} Delta table of a storage root (idempotent), as
 * the pipeline's ETL does.
 */
final class FashionData {
  static final String TABLE = "fashion_mnist";

  private FashionData() {}

  static IngestResult ingest(StorageRoot root, Path data) {
    if (!Files.isDirectory(data)) {
      throw new IllegalArgumentException(
          "no Fashion-MNIST at "
              + data
              + ": apt-get install -y dataset-fashion-mnist, or pass --data DIR");
    }
    return new IngestActivitiesImpl(root)
        .ingest(
            IngestRequest.newBuilder()
                .setSource(
                    DataSource.newBuilder()
                        .setFormat(SourceFormat.FASHION_MNIST.proto())
                        .setUri(data.toString()))
                .setTableUri(TABLE)
                .build());
  }
}
