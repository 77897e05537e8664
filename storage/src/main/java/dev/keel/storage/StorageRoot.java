package dev.keel.storage;

import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where Keel keeps tables, checkpoints and its catalog: {@code tables/<name>}, {@code
 * checkpoints/<exp>/<trial>/<uuid>/}, {@code models/}, {@code _keel/}. A {@code file://} URI or a
 * plain path (local), or {@code s3://bucket/prefix}.
 */
public final class StorageRoot {
  private final URI root;

  private StorageRoot(URI root) {
    this.root = root;
  }

  /** Accepts a plain path ({@code ./keel-data}), a {@code file:} URI or an {@code s3://} URI. */
  public static StorageRoot of(String location) {
    Objects.requireNonNull(location, "storage root");
    if (location.isBlank()) {
      throw new IllegalArgumentException("storage root: must not be empty");
    }
    if (location.startsWith("s3://") || location.startsWith("s3a://")) {
      S3Uri s3 = S3Uri.parse(location); // checks there is a bucket
      return new StorageRoot(
          URI.create(s3.key().isEmpty() ? "s3://" + s3.bucket() : s3.toString()));
    }
    if (location.startsWith("file:")) {
      return local(Path.of(URI.create(location)));
    }
    return local(Path.of(location));
  }

  /**
   * One spelling per directory: {@code Path.toUri()} ends a directory that exists with a slash, so
   * a root named before its directory was created would otherwise differ from the same root named
   * after.
   */
  private static StorageRoot local(Path dir) {
    String uri = dir.toAbsolutePath().normalize().toUri().toString();
    return new StorageRoot(
        URI.create(
            uri.endsWith("/") && !uri.equals("file:///")
                ? uri.substring(0, uri.length() - 1)
                : uri));
  }

  public boolean isS3() {
    return "s3".equals(root.getScheme());
  }

  public boolean isLocal() {
    return "file".equals(root.getScheme());
  }

  public URI uri() {
    return root;
  }

  /** The local directory of a {@code file:} root. */
  public Path localPath() {
    if (!isLocal()) {
      throw new IllegalStateException("storage root " + root + " is not local");
    }
    return Path.of(root);
  }

  /** A table name becomes {@code <root>/tables/<name>}; a URI or absolute path is kept as is. */
  public String table(String nameOrUri) {
    if (nameOrUri.contains("://") || nameOrUri.startsWith("file:") || nameOrUri.startsWith("/")) {
      return nameOrUri.startsWith("/") ? Path.of(nameOrUri).toUri().toString() : nameOrUri;
    }
    return resolve("tables/" + nameOrUri);
  }

  public String checkpoints() {
    return resolve("checkpoints");
  }

  public String resolve(String relative) {
    String base = root.toString();
    return (base.endsWith("/") ? base : base + "/") + relative;
  }

  @Override
  public String toString() {
    return root.toString();
  }
}
