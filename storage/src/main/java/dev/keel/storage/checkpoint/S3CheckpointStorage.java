package dev.keel.storage.checkpoint;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.storage.S3Clients;
import dev.keel.storage.S3Objects;
import dev.keel.storage.S3Uri;
import dev.keel.storage.StorageFailures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Checkpoints in S3 under {@code s3://bucket/prefix/<experiment>/<trial>/<uuid>/}, through the AWS
 * SDK (client from {@link S3Clients}, i.e. the usual AWS settings).
 *
 * <p>Writing: the checkpoint is staged in a local temporary directory; {@link
 * StagedCheckpoint#commit} uploads every file and the {@value CheckpointFiles#MANIFEST} last, with
 * {@code If-None-Match: *} so a uuid can never be committed twice. A reader that finds the MANIFEST
 * therefore finds every file it lists; a prefix without one is a partial checkpoint and {@link
 * VerifiedCheckpoint} refuses it.
 *
 * <p>Reading: {@link #localDirectory} mirrors the checkpoint into a local cache directory ({@code
 * <java.io.tmpdir>/keel-checkpoint-cache/<bucket>/<key>}, re-downloading only objects whose ETag
 * changed) and {@link VerifiedCheckpoint} checks every SHA-256 there.
 *
 * <p>Storage that refuses access (wrong credentials, no bucket) fails with a non-retryable one-line
 * {@link KeelFailure} ({@value FailureTypes#STORAGE_UNUSABLE}); other S3 errors are {@link
 * IOException}s.
 */
public final class S3CheckpointStorage implements CheckpointStorage {
  private static final String ETAG_SUFFIX = ".etag";
  private static final Map<String, Object> LOCKS = new ConcurrentHashMap<>();

  private final S3Uri root;
  private final S3Client s3;
  private final Path cache;

  /** Storage under {@code rootUri} with this process's AWS settings and the default cache. */
  public S3CheckpointStorage(String rootUri) {
    this(rootUri, S3Clients.fromEnvironment(), defaultCache());
  }

  public S3CheckpointStorage(String rootUri, S3Client s3, Path cacheDirectory) {
    this.root = S3Uri.parse(rootUri);
    this.s3 = s3;
    this.cache = cacheDirectory.toAbsolutePath().normalize();
  }

  public static Path defaultCache() {
    return Path.of(System.getProperty("java.io.tmpdir"), "keel-checkpoint-cache");
  }

  @Override
  public String rootUri() {
    return "s3://" + root.bucket() + "/" + root.prefix();
  }

  @Override
  public StagedCheckpoint stage(String experimentId, String trialId, String uuid)
      throws IOException {
    S3Uri target =
        root.resolve(
            safe(experimentId, "experiment_id")
                + "/"
                + safe(trialId, "trial_id")
                + "/"
                + safe(uuid, "uuid"));
    return new Staged(Files.createTempDirectory("keel-checkpoint-"), target);
  }

  @Override
  public Path localDirectory(String uri) throws IOException {
    S3Uri location = S3Uri.parse(uri);
    synchronized (LOCKS.computeIfAbsent(location.toString(), k -> new Object())) {
      Map<String, S3Object> remote = new HashMap<>();
      try {
        for (S3Object o :
            s3.listObjectsV2Paginator(
                    b -> b.bucket(location.bucket()).prefix(location.prefix()).delimiter("/"))
                .contents()) {
          String name = o.key().substring(location.prefix().length());
          if (!name.isEmpty() && !name.startsWith(".")) {
            remote.put(name, o);
          }
        }
      } catch (SdkException e) {
        throw failure(uri, "listing", e);
      }
      if (remote.isEmpty()) {
        throw new CorruptCheckpointException(uri, ".", "no checkpoint at " + uri);
      }
      Path dir =
          cache
              .resolve(location.bucket())
              .resolve(location.key().isEmpty() ? "_root" : location.key());
      Files.createDirectories(dir);
      // drop local files the checkpoint no longer has (a stale MANIFEST must not survive)
      try (Stream<Path> local = Files.list(dir)) {
        for (Path p : local.toList()) {
          String name = p.getFileName().toString();
          String base =
              name.endsWith(ETAG_SUFFIX) && name.startsWith(".")
                  ? name.substring(1, name.length() - ETAG_SUFFIX.length())
                  : name;
          if (!remote.containsKey(base)) {
            Files.deleteIfExists(p);
          }
        }
      }
      for (Map.Entry<String, S3Object> e : remote.entrySet()) {
        download(uri, location, dir, e.getKey(), e.getValue());
      }
      return dir;
    }
  }

  @Override
  public boolean contains(String uri) {
    if (!S3Uri.isS3(uri)) {
      return false;
    }
    S3Uri location;
    try {
      location = S3Uri.parse(uri);
    } catch (IllegalArgumentException e) {
      return false;
    }
    for (String segment : location.key().split("/")) {
      if (segment.equals("..") || segment.equals(".")) {
        return false;
      }
    }
    return location.bucket().equals(root.bucket())
        && location.prefix().startsWith(root.prefix())
        && location.prefix().length() > root.prefix().length();
  }

  /**
   * Deletes the {@value CheckpointFiles#MANIFEST} object first (from then on the checkpoint is
   * partial for every reader), then every other object under the checkpoint's prefix, and drops
   * this process's cached copy.
   */
  @Override
  public long delete(String uri) throws IOException {
    if (!contains(uri)) {
      throw new IllegalArgumentException(
          "refusing to delete " + uri + ": not inside the checkpoint root " + rootUri());
    }
    S3Uri location = S3Uri.parse(uri);
    String prefix = location.prefix();
    synchronized (LOCKS.computeIfAbsent(location.toString(), k -> new Object())) {
      List<S3Object> objects = new ArrayList<>();
      try {
        s3.listObjectsV2Paginator(b -> b.bucket(location.bucket()).prefix(prefix))
            .contents()
            .forEach(objects::add);
      } catch (SdkException e) {
        throw failure(uri, "listing", e);
      }
      long bytes = 0;
      String manifest = prefix + CheckpointFiles.MANIFEST;
      objects.sort(Comparator.comparing((S3Object o) -> !o.key().equals(manifest)));
      for (S3Object o : objects) {
        try {
          s3.deleteObject(b -> b.bucket(location.bucket()).key(o.key()));
        } catch (NoSuchKeyException e) {
          continue; // deleted concurrently
        } catch (SdkException e) {
          throw failure(uri, "deleting " + o.key().substring(prefix.length()), e);
        }
        bytes += o.size();
      }
      LocalCheckpointStorage.deleteTree(
          cache
              .resolve(location.bucket())
              .resolve(location.key().isEmpty() ? "_root" : location.key()));
      return bytes;
    }
  }

  private void download(String uri, S3Uri location, Path dir, String name, S3Object object)
      throws IOException {
    Path file = dir.resolve(name);
    Path etagFile = dir.resolve("." + name + ETAG_SUFFIX);
    if (Files.isRegularFile(file)
        && Files.isRegularFile(etagFile)
        && Files.readString(etagFile).equals(object.eTag())
        && Files.size(file) == object.size()) {
      return;
    }
    Path tmp =
        dir.resolve("." + name + "." + UUID.randomUUID() + ".part"); // toFile wants a new file
    try {
      s3.getObject(
          b -> b.bucket(location.bucket()).key(location.prefix() + name),
          ResponseTransformer.toFile(tmp));
    } catch (NoSuchKeyException e) {
      Files.deleteIfExists(tmp);
      return; // deleted since the listing: the verifier reports it if the MANIFEST lists it
    } catch (SdkException e) {
      Files.deleteIfExists(tmp);
      throw failure(uri, "downloading " + name, e);
    } catch (UncheckedIOException e) {
      Files.deleteIfExists(tmp);
      throw e.getCause();
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    Files.writeString(etagFile, object.eTag(), StandardCharsets.UTF_8);
  }

  /** An access problem becomes the non-retryable activity failure; anything else an IOException. */
  private static IOException failure(String uri, String what, SdkException e) {
    StorageFailures.nonRetryable(uri, e)
        .ifPresent(
            f -> {
              throw f;
            });
    return new IOException("checkpoint " + uri + ": " + what + " failed: " + e.getMessage(), e);
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

  private final class Staged implements StagedCheckpoint {
    private final Path staging;
    private final S3Uri target;

    Staged(Path staging, S3Uri target) {
      this.staging = staging;
      this.target = target;
    }

    @Override
    public Path directory() {
      return staging;
    }

    @Override
    public String commit() throws IOException {
      String uri = "s3://" + target.bucket() + "/" + target.prefix();
      List<Path> files = new ArrayList<>();
      try (Stream<Path> list = Files.list(staging)) {
        list.filter(Files::isRegularFile).sorted().forEach(files::add);
      }
      Path manifest = staging.resolve(CheckpointFiles.MANIFEST);
      if (!files.remove(manifest)) {
        throw new IOException(
            "checkpoint " + uri + ": nothing to commit without a " + CheckpointFiles.MANIFEST);
      }
      try {
        if (exists(target.prefix() + CheckpointFiles.MANIFEST)) {
          throw new FileAlreadyExistsException(uri + " (checkpoint uuids must be unique)");
        }
        for (Path f : files) {
          s3.putObject(
              b -> b.bucket(target.bucket()).key(target.prefix() + f.getFileName()),
              RequestBody.fromFile(f));
        }
        // last, and only if absent: its presence is what makes the checkpoint committed
        s3.putObject(
            b ->
                b.bucket(target.bucket())
                    .key(target.prefix() + CheckpointFiles.MANIFEST)
                    .ifNoneMatch("*"),
            RequestBody.fromFile(manifest));
      } catch (S3Exception e) {
        if (e.statusCode() == 412) {
          throw new FileAlreadyExistsException(uri + " (checkpoint uuids must be unique)");
        }
        throw failure(uri, "uploading", e);
      } catch (SdkException e) {
        throw failure(uri, "uploading", e);
      }
      return uri;
    }

    private boolean exists(String key) {
      return S3Objects.exists(s3, target.bucket(), key);
    }

    @Override
    public void close() throws IOException {
      LocalCheckpointStorage.deleteTree(staging); // committed or not, S3 holds the checkpoint now
    }
  }
}
