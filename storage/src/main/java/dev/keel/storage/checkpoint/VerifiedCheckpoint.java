package dev.keel.storage.checkpoint;

import dev.keel.api.v1.CheckpointRef;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A checkpoint whose MANIFEST has been verified (every file present with the recorded size and
 * SHA-256) and whose metadata parsed. Loading its tensors into a model is the trainer's job ({@code
 * dev.keel.gpu.checkpoint.ModelCheckpoints}); this class knows files, not tensors.
 */
public final class VerifiedCheckpoint {
  private final String uri;
  private final Path dir;
  private final Manifest manifest;
  private final CheckpointMetadata metadata;

  private VerifiedCheckpoint(String uri, Path dir, Manifest manifest, CheckpointMetadata metadata) {
    this.uri = uri;
    this.dir = dir;
    this.manifest = manifest;
    this.metadata = metadata;
  }

  /**
   * @throws CorruptCheckpointException if the checkpoint is missing, partial or corrupt
   */
  public static VerifiedCheckpoint open(CheckpointStorage storage, String uri) throws IOException {
    Path dir = storage.localDirectory(uri);
    Manifest manifest = Manifest.verify(dir, uri, CheckpointFiles.REQUIRED);
    CheckpointMetadata metadata;
    try {
      metadata =
          CheckpointMetadata.fromJson(Files.readAllBytes(dir.resolve(CheckpointFiles.METADATA)));
    } catch (IOException | RuntimeException e) {
      String problem =
          e instanceof CheckpointMetadata.FormatException
              ? e.getMessage()
              : "unreadable: " + e.getMessage();
      throw new CorruptCheckpointException(uri, CheckpointFiles.METADATA, problem, e);
    }
    return new VerifiedCheckpoint(uri, dir, manifest, metadata);
  }

  /** Opens {@code ref.uri} with the storage for its location. */
  public static VerifiedCheckpoint open(CheckpointRef ref) throws IOException {
    return open(CheckpointStorage.forRoot(ref.getUri()), ref.getUri());
  }

  public String uri() {
    return uri;
  }

  public CheckpointMetadata metadata() {
    return metadata;
  }

  public long sizeBytes() {
    return manifest.totalBytes();
  }

  public CheckpointRef ref() {
    return CheckpointRef.newBuilder()
        .setUuid(metadata.uuid())
        .setUri(uri)
        .setExperimentId(metadata.experimentId())
        .setTrialId(metadata.trialId())
        .setBatches(metadata.batches())
        .putAllMetrics(metadata.metrics())
        .setSizeBytes(sizeBytes())
        .build();
  }

  /**
   * Copies this checkpoint, byte for byte and with the same uuid, to {@code <target
   * root>/<group>/<member>/<uuid>/}; a TorchScript model's copy also gets {@value
   * CheckpointFiles#TORCHSCRIPT}, which its manifest lists. A copy already there (from an earlier
   * attempt) is verified and kept.
   *
   * @return the copy
   * @throws CorruptCheckpointException when a copy is there but does not verify
   */
  public CheckpointRef copyTo(CheckpointStorage target, String group, String member)
      throws IOException {
    String root = target.rootUri().endsWith("/") ? target.rootUri() : target.rootUri() + "/";
    String expected = root + group + "/" + member + "/" + metadata.uuid() + "/";
    try (CheckpointStorage.StagedCheckpoint staged = target.stage(group, member, metadata.uuid())) {
      List<String> names = new ArrayList<>();
      for (Manifest.Entry e : manifest.entries()) {
        Path to = staged.directory().resolve(e.name());
        Files.createDirectories(to.getParent());
        Files.copy(dir.resolve(e.name()), to);
        names.add(e.name());
      }
      if (!metadata.model().getTorchscriptSha256().isEmpty()
          && !names.contains(CheckpointFiles.TORCHSCRIPT)) {
        Files.write(
            staged.directory().resolve(CheckpointFiles.TORCHSCRIPT),
            TorchScriptArchive.unwrap(
                Files.readAllBytes(dir.resolve(CheckpointFiles.PARAMETERS)), uri));
        names.add(CheckpointFiles.TORCHSCRIPT);
        Manifest.of(staged.directory(), names).writeTo(staged.directory());
      } else {
        Files.copy(
            dir.resolve(CheckpointFiles.MANIFEST),
            staged.directory().resolve(CheckpointFiles.MANIFEST));
      }
      return open(target, staged.commit()).ref();
    } catch (FileAlreadyExistsException e) {
      return open(target, expected).ref();
    }
  }

  /** One of the checkpoint's verified files ({@link CheckpointFiles}), buffered. */
  public DataInputStream openFile(String name) throws IOException {
    return new DataInputStream(
        new BufferedInputStream(Files.newInputStream(dir.resolve(name)), 1 << 16));
  }
}
