package dev.keel.storage.checkpoint;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;

/**
 * Where checkpoint directories live. Writers fill a {@link StagedCheckpoint}'s local directory and
 * {@link StagedCheckpoint#commit commit} it; readers get a local directory to verify and read.
 */
public interface CheckpointStorage {

  /** The root URI, e.g. {@code file:///data/checkpoints/}. */
  String rootUri();

  /** A fresh, invisible directory for checkpoint {@code <experiment>/<trial>/<uuid>}. */
  StagedCheckpoint stage(String experimentId, String trialId, String uuid) throws IOException;

  /**
   * A local directory with the checkpoint's files.
   *
   * @throws CorruptCheckpointException if there is no checkpoint at {@code uri}
   */
  Path localDirectory(String uri) throws IOException;

  /**
   * Whether {@code uri} lies strictly inside this storage's root (so {@link #delete} may remove
   * it). Never touches the storage.
   */
  boolean contains(String uri);

  /**
   * Deletes the checkpoint at {@code uri}: its {@value CheckpointFiles#MANIFEST} first, so a
   * checkpoint whose deletion is interrupted is refused as partial by every reader, then every
   * other file under it.
   *
   * @return the bytes freed; 0 when there was nothing there (deleting twice is safe)
   * @throws IllegalArgumentException when {@code uri} is not strictly inside {@link #rootUri()}
   */
  long delete(String uri) throws IOException;

  /** A checkpoint being written. Closing without committing deletes it. */
  interface StagedCheckpoint extends AutoCloseable {
    Path directory();

    /** Makes the checkpoint durable and visible under its final URI, which it returns. */
    String commit() throws IOException;

    @Override
    void close() throws IOException;
  }

  /**
   * Storage for an {@code s3://bucket/prefix} URI ({@link S3CheckpointStorage}, configured by the
   * usual AWS settings), a {@code file:} URI or a plain path ({@link LocalCheckpointStorage}).
   */
  static CheckpointStorage forRoot(String rootUri) {
    if (rootUri == null || rootUri.isBlank()) {
      throw new IllegalArgumentException("checkpoint root must not be empty");
    }
    if (rootUri.startsWith("s3://") || rootUri.startsWith("s3a://")) {
      return new S3CheckpointStorage(rootUri);
    }
    if (rootUri.contains("://") && !rootUri.startsWith("file:")) {
      throw new IllegalArgumentException(
          "unsupported checkpoint root " + rootUri + " (file:// or s3://)");
    }
    return new LocalCheckpointStorage(
        rootUri.startsWith("file:") ? Path.of(URI.create(rootUri)) : Path.of(rootUri));
  }
}
