package dev.keel.etl;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.etl.IngestActivities;
import dev.keel.api.v1.IngestRequest;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.TableRef;
import dev.keel.etl.fashionmnist.IdxReader;
import dev.keel.storage.StorageFailures;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ingests a data source into a labeled-images Delta table ({@link TableSchemas#LABELED_IMAGES}).
 *
 * <p>Format {@code fashion_mnist}: {@code source.uri} is a directory (plain path or {@code file:}
 * URI; empty means {@value #DEFAULT_FASHION_MNIST_DIR}) with the four IDX {@code .gz} files. Ids
 * are stable: train image i has id i, test image i has id 60000+i (offset = train count).
 *
 * <p>Idempotent: the commit carries a Delta {@code txn} action with appId {@code
 * keel-ingest:<sha256 of the four files>}; when the table already holds it, nothing is written
 * and the result says {@code already_ingested} with the table's current version. Data files are
 * written before the single commit, so a crash leaves no new version.
 */
public final class IngestActivitiesImpl implements IngestActivities {
  private static final Logger log = LoggerFactory.getLogger(IngestActivitiesImpl.class);

  public static final String FORMAT_FASHION_MNIST = "fashion_mnist";
  public static final String DEFAULT_FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist";
  /** Prefix of the Delta SetTransaction appId recording an ingested source checksum. */
  public static final String TXN_APP_ID_PREFIX = "keel-ingest:";
  static final long TXN_VERSION = 1;

  /** The four IDX files of a Fashion-MNIST directory. */
  public static final List<String> FASHION_MNIST_FILES =
      List.of(
          "train-images-idx3-ubyte.gz",
          "train-labels-idx1-ubyte.gz",
          "t10k-images-idx3-ubyte.gz",
          "t10k-labels-idx1-ubyte.gz");

  private final Engine engine;
  private final Runnable beforeCommit;
  private final StorageRoot storage; // null: requests carry full table URIs

  public IngestActivitiesImpl() {
    this(DeltaTables.defaultEngine(), null, () -> {});
  }

  /** Table names in requests resolve to {@code tables/<name>} under {@code storage}. */
  public IngestActivitiesImpl(StorageRoot storage) {
    this(DeltaTables.defaultEngine(), storage, () -> {});
  }

  public IngestActivitiesImpl(Engine engine) {
    this(engine, null, () -> {});
  }

  /** Test hook: {@code beforeCommit} runs after the Parquet files are written, before the commit. */
  IngestActivitiesImpl(Engine engine, Runnable beforeCommit) {
    this(engine, null, beforeCommit);
  }

  private IngestActivitiesImpl(Engine engine, StorageRoot storage, Runnable beforeCommit) {
    this.engine = engine;
    this.storage = storage;
    this.beforeCommit = beforeCommit;
  }

  @Override
  public IngestResult ingest(IngestRequest request) {
    String format = request.getSource().getFormat();
    if (!FORMAT_FASHION_MNIST.equals(format)) {
      throw ApplicationFailure.newNonRetryableFailure(
          "unknown source.format '" + format + "' (supported: " + FORMAT_FASHION_MNIST + ")",
          FailureTypes.UNKNOWN_FORMAT);
    }
    if (request.getTableUri().isBlank()) {
      throw ApplicationFailure.newNonRetryableFailure("table_uri is empty", FailureTypes.INVALID_ARGUMENT);
    }
    String table = storage == null ? request.getTableUri() : storage.table(request.getTableUri());
    try {
      return ingestFashionMnist(sourceDir(request.getSource().getUri()), table);
    } catch (RuntimeException e) {
      throw StorageFailures.translate(table, e);
    }
  }

  private IngestResult ingestFashionMnist(Path dir, String tableUri) {
    for (String f : FASHION_MNIST_FILES) {
      if (!Files.isRegularFile(dir.resolve(f))) {
        throw ApplicationFailure.newNonRetryableFailure(
            "Fashion-MNIST not found at " + dir
                + ": install it with 'apt-get install -y dataset-fashion-mnist'",
            FailureTypes.DATASET_MISSING);
      }
    }
    long t0 = System.nanoTime();
    String checksum = sha256(dir);
    String appId = TXN_APP_ID_PREFIX + checksum;
    log.info("ingest fashion_mnist from {} (sha256 {}) into {}", dir, checksum, tableUri);

    Optional<IngestResult> done = alreadyIngested(dir, tableUri, appId, checksum);
    if (done.isPresent()) {
      return done.get();
    }
    try {
      IdxReader.Images trainImages = IdxReader.readImages(dir.resolve(FASHION_MNIST_FILES.get(0)));
      byte[] trainLabels = IdxReader.readLabels(dir.resolve(FASHION_MNIST_FILES.get(1)));
      IdxReader.Images testImages = IdxReader.readImages(dir.resolve(FASHION_MNIST_FILES.get(2)));
      byte[] testLabels = IdxReader.readLabels(dir.resolve(FASHION_MNIST_FILES.get(3)));
      check(trainImages, trainLabels, "train");
      check(testImages, testLabels, "t10k");
      if (trainImages.rows() != testImages.rows() || trainImages.cols() != testImages.cols()) {
        throw ApplicationFailure.newNonRetryableFailure(
            "train and test images differ in shape", FailureTypes.DATASET_CORRUPT);
      }
      log.info(
          "decoded {} train + {} test images ({}x{}) in {} ms",
          trainImages.count(), testImages.count(), trainImages.rows(), trainImages.cols(),
          (System.nanoTime() - t0) / 1_000_000);

      Columns train = split(trainImages, trainLabels, 0, "train");
      Columns test = split(testImages, testLabels, trainImages.count(), "test");
      DeltaTableWriter writer =
          new DeltaTableWriter(
              engine,
              tableUri,
              TableSchemas.LABELED_IMAGES,
              Map.of(
                  TableSchemas.IMAGE_SHAPE_PROPERTY, trainImages.rows() + "x" + trainImages.cols(),
                  "delta.dataSkippingNumIndexedCols", "3"));
      long version;
      try {
        version =
            writer
                .newAppend()
                .add(train)
                .add(test)
                .transactionId(appId, TXN_VERSION)
                .beforeCommit(beforeCommit)
                .commit();
      } catch (ConcurrentTransactionException e) {
        log.info("another ingest of {} committed first", checksum);
        return alreadyIngested(dir, tableUri, appId, checksum).orElseThrow(() -> e);
      } catch (IllegalArgumentException e) {
        // e.g. the table exists with another schema: retrying cannot help
        throw ApplicationFailure.newNonRetryableFailureWithCause(
            e.getMessage(), FailureTypes.INVALID_TABLE, e);
      }
      log.info(
          "ingested {} rows into {} v{} in {} ms",
          train.rows() + test.rows(), tableUri, version, (System.nanoTime() - t0) / 1_000_000);
      return IngestResult.newBuilder()
          .setTable(TableRef.newBuilder().setUri(tableUri).setVersion(version))
          .setRows(train.rows() + test.rows())
          .putRowsPerSplit("train", train.rows())
          .putRowsPerSplit("test", test.rows())
          .setSourceChecksum(checksum)
          .setAlreadyIngested(false)
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException("reading Fashion-MNIST from " + dir, e);
    }
  }

  private Optional<IngestResult> alreadyIngested(
      Path dir, String tableUri, String appId, String checksum) {
    Optional<Snapshot> snapshot = DeltaTables.latestSnapshot(engine, tableUri);
    if (snapshot.isEmpty() || snapshot.get().getLatestTransactionVersion(engine, appId).isEmpty()) {
      return Optional.empty();
    }
    long version = snapshot.get().getVersion();
    try {
      long train = IdxReader.readLabels(dir.resolve(FASHION_MNIST_FILES.get(1))).length;
      long test = IdxReader.readLabels(dir.resolve(FASHION_MNIST_FILES.get(3))).length;
      log.info("{} already holds source {}; nothing to write (v{})", tableUri, checksum, version);
      return Optional.of(
          IngestResult.newBuilder()
              .setTable(TableRef.newBuilder().setUri(tableUri).setVersion(version))
              .setRows(train + test)
              .putRowsPerSplit("train", train)
              .putRowsPerSplit("test", test)
              .setSourceChecksum(checksum)
              .setAlreadyIngested(true)
              .build());
    } catch (IOException e) {
      throw new UncheckedIOException("reading Fashion-MNIST labels from " + dir, e);
    }
  }

  private static Columns split(IdxReader.Images images, byte[] labels, long idOffset, String name) {
    int n = images.count();
    long[] ids = new long[n];
    int[] lab = new int[n];
    String[] split = new String[n];
    for (int i = 0; i < n; i++) {
      ids[i] = idOffset + i;
      lab[i] = labels[i] & 0xFF;
      split[i] = name;
    }
    return Columns.of(n)
        .add("id", ids)
        .add("label", lab)
        .add("split", split)
        .addFixedBinary("image", images.pixels(), images.rows() * images.cols());
  }

  private static void check(IdxReader.Images images, byte[] labels, String what) {
    if (images.count() != labels.length) {
      throw ApplicationFailure.newNonRetryableFailure(
          what + ": " + images.count() + " images but " + labels.length + " labels",
          FailureTypes.DATASET_CORRUPT);
    }
  }

  static Path sourceDir(String uri) {
    if (uri == null || uri.isBlank()) {
      return Path.of(DEFAULT_FASHION_MNIST_DIR);
    }
    String s = uri.strip();
    if (s.startsWith("file:")) {
      return Path.of(URI.create(s));
    }
    if (s.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      throw ApplicationFailure.newNonRetryableFailure(
          "source.uri " + s + ": fashion_mnist reads a local directory (plain path or file: URI)",
          FailureTypes.INVALID_ARGUMENT);
    }
    return Path.of(s);
  }

  /** SHA-256 over the four files' bytes, in a fixed order. */
  static String sha256(Path dir) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (String f : FASHION_MNIST_FILES) {
        try (InputStream in = Files.newInputStream(dir.resolve(f))) {
          for (int r; (r = in.read(buf)) > 0; ) {
            md.update(buf, 0, r);
          }
        }
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (IOException e) {
      throw new UncheckedIOException("hashing " + dir, e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
