package dev.keel.storage.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Checkpoints on a local (or mounted) file system. A checkpoint is staged in {@code
 * <trial>/.staging-<uuid>} next to its final directory, every file and the directory are fsynced,
 * then it is renamed atomically to {@code <trial>/<uuid>} and the parent is fsynced.
 */
public final class LocalCheckpointStorage implements CheckpointStorage {
  private final Path root;
  private final Runnable afterManifestDeleted;

  public LocalCheckpointStorage(Path root) {
    this(root, () -> {});
  }

  /**
   * Test hook: {@code afterManifestDeleted} runs in {@link #delete} between the MANIFEST and the
   * rest.
   */
  LocalCheckpointStorage(Path root, Runnable afterManifestDeleted) {
    this.root = root.toAbsolutePath().normalize();
    this.afterManifestDeleted = afterManifestDeleted;
  }

  @Override
  public String rootUri() {
    return root.toUri().toString();
  }

  @Override
  public StagedCheckpoint stage(String experimentId, String trialId, String uuid)
      throws IOException {
    Path trialDir =
        root.resolve(safe(experimentId, "experiment_id")).resolve(safe(trialId, "trial_id"));
    Path target = trialDir.resolve(safe(uuid, "uuid"));
    Path staging = trialDir.resolve(".staging-" + uuid);
    Files.createDirectories(trialDir);
    deleteTree(staging);
    Files.createDirectory(staging);
    return new Staged(staging, target);
  }

  @Override
  public Path localDirectory(String uri) {
    Path dir = uri.startsWith("file:") ? Path.of(URI.create(uri)) : Path.of(uri);
    if (!Files.isDirectory(dir)) {
      throw new CorruptCheckpointException(uri, ".", "no checkpoint directory at " + dir);
    }
    return dir;
  }

  @Override
  public boolean contains(String uri) {
    Path dir = path(uri);
    return dir != null && dir.startsWith(root) && !dir.equals(root);
  }

  @Override
  public long delete(String uri) throws IOException {
    if (!contains(uri)) {
      throw new IllegalArgumentException(
          "refusing to delete " + uri + ": not inside the checkpoint root " + rootUri());
    }
    Path dir = path(uri);
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalArgumentException(
          "refusing to delete " + uri + ": not a checkpoint directory");
    }
    Path real = dir.toRealPath();
    Path realRoot = root.toRealPath();
    if (!real.startsWith(realRoot) || real.equals(realRoot)) {
      // a symbolic link on the way leads out of the root
      throw new IllegalArgumentException(
          "refusing to delete "
              + uri
              + ": it resolves to "
              + real
              + ", outside the checkpoint root "
              + rootUri());
    }
    long bytes = 0;
    // MANIFEST first, durably: from here on every reader refuses the checkpoint as partial
    Path manifest = dir.resolve(CheckpointFiles.MANIFEST);
    if (Files.exists(manifest, LinkOption.NOFOLLOW_LINKS)) {
      bytes += sizeOf(manifest);
      Files.delete(manifest);
      fsync(dir);
    }
    afterManifestDeleted.run();
    List<Path> all;
    try (Stream<Path> walk = Files.walk(dir)) {
      all = walk.sorted(Comparator.reverseOrder()).toList();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    for (Path p : all) {
      long size = sizeOf(p);
      if (Files.deleteIfExists(p)) {
        bytes += size;
      }
    }
    return bytes;
  }

  /** The normalised absolute path of a {@code file:} URI or plain path; null for other schemes. */
  private static Path path(String uri) {
    if (uri == null || uri.isBlank()) {
      return null;
    }
    try {
      if (uri.startsWith("file:")) {
        return Path.of(URI.create(uri)).toAbsolutePath().normalize();
      }
      if (uri.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
        return null;
      }
      return Path.of(uri).toAbsolutePath().normalize();
    } catch (IllegalArgumentException e) { // incl. InvalidPathException
      return null;
    }
  }

  /** Size of a regular file (not following links), 0 for anything else or a vanished file. */
  private static long sizeOf(Path p) throws IOException {
    try {
      BasicFileAttributes a =
          Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return a.isRegularFile() ? a.size() : 0;
    } catch (NoSuchFileException e) {
      return 0;
    }
  }

  private static String safe(String part, String what) {
    if (part == null
        || part.isBlank()
        || part.contains("/")
        || part.contains("\\")
        || part.equals(".")
        || part.equals("..")) {
      throw new IllegalArgumentException(what + ": not usable as a path segment: '" + part + "'");
    }
    return part;
  }

  static void fsync(Path path) throws IOException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some file systems refuse to open directories for reading; data files still got forced.
      if (!Files.isDirectory(path)) {
        throw e;
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static final class Staged implements StagedCheckpoint {
    private final Path staging;
    private final Path target;
    private boolean committed;

    Staged(Path staging, Path target) {
      this.staging = staging;
      this.target = target;
    }

    @Override
    public Path directory() {
      return staging;
    }

    @Override
    public String commit() throws IOException {
      List<Path> files;
      try (Stream<Path> list = Files.list(staging)) {
        files = list.toList();
      }
      for (Path f : files) {
        fsync(f);
      }
      fsync(staging);
      if (Files.exists(target)) {
        throw new FileAlreadyExistsException(target + " (checkpoint uuids must be unique)");
      }
      try {
        Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("file system of " + target + " cannot rename atomically", e);
      }
      fsync(target.getParent());
      committed = true;
      return target.toUri().toString();
    }

    @Override
    public void close() throws IOException {
      if (!committed) {
        deleteTree(staging);
      }
    }
  }
}
