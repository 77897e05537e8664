package dev.keel.etl.source;

import dev.keel.storage.S3Clients;
import dev.keel.storage.S3Uri;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The files of a source URI, sorted by their path relative to the source. A directory (or an S3
 * prefix) is walked recursively; names starting with {@code .} or {@code _} (e.g. {@code _SUCCESS},
 * {@code .crc}) are ignored, as Spark and Hadoop writers leave them next to data files. S3 objects
 * are copied to a temporary directory first (the readers need random access, e.g. Parquet footers);
 * {@link #close} deletes it.
 */
public final class SourceFiles implements AutoCloseable {
  /** One file: its path relative to the source (with {@code /}), and where to read it locally. */
  public record Entry(String relative, Path path) {}

  private final String uri;
  private final List<Entry> files;
  private final Path tempDir; // null for local sources

  private SourceFiles(String uri, List<Entry> files, Path tempDir) {
    this.uri = uri;
    this.files = List.copyOf(files);
    this.tempDir = tempDir;
  }

  /**
   * Lists (and for S3 downloads) the source's files.
   *
   * @throws NoSuchFileException naming {@code uri} as the user wrote it when nothing is there
   */
  public static SourceFiles open(String uri) throws IOException {
    String s = uri.strip();
    if (S3Uri.isS3(s)) {
      return openS3(s);
    }
    Path local = localPath(s);
    if (!Files.exists(local)) {
      throw new NoSuchFileException(uri, null, "no such file or directory");
    }
    return new SourceFiles(uri, walk(local), null);
  }

  /** A plain path or a {@code file:} URI as a local path; other schemes are refused. */
  public static Path localPath(String uri) {
    String s = uri.strip();
    if (s.startsWith("file:")) {
      return Path.of(URI.create(s));
    }
    if (s.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      throw new IllegalArgumentException(
          "source.uri " + s + ": unsupported scheme (use a local path, a file: URI or s3://)");
    }
    return Path.of(s);
  }

  public String uri() {
    return uri;
  }

  /** Sorted by relative path. */
  public List<Entry> files() {
    return files;
  }

  /**
   * SHA-256 over every file's relative path and bytes, in order: any renamed or changed file
   * changes it.
   */
  public String checksum() {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (Entry e : files) {
        md.update(e.relative().getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0);
        digest(md, e.path(), buf);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (IOException e) {
      throw new UncheckedIOException("hashing " + uri, e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Feeds {@code file}'s bytes to {@code md}, through {@code buf}. */
  public static void digest(MessageDigest md, Path file, byte[] buf) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      for (int r; (r = in.read(buf)) > 0; ) {
        md.update(buf, 0, r);
      }
    }
  }

  @Override
  public void close() {
    if (tempDir != null) {
      deleteTree(tempDir);
    }
  }

  private static List<Entry> walk(Path local) throws IOException {
    if (Files.isRegularFile(local)) {
      return List.of(new Entry(local.getFileName().toString(), local));
    }
    List<Entry> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(local)) {
      for (Path p : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
        String rel = local.relativize(p).toString().replace('\\', '/');
        if (!hidden(rel)) {
          out.add(new Entry(rel, p));
        }
      }
    }
    out.sort(Comparator.comparing(Entry::relative));
    return out;
  }

  private static boolean hidden(String relative) {
    for (String part : relative.split("/")) {
      if (part.startsWith(".") || part.startsWith("_")) {
        return true;
      }
    }
    return false;
  }

  /** The keys under an S3 URI: the object itself, or every object under {@code key/}. */
  public static List<String> s3Keys(S3Client s3, S3Uri u) {
    List<String> keys = new ArrayList<>();
    String prefix = u.key().isEmpty() || u.key().endsWith("/") ? u.key() : u.key() + "/";
    ListObjectsV2Request.Builder req =
        ListObjectsV2Request.builder().bucket(u.bucket()).prefix(u.key());
    for (S3Object o : s3.listObjectsV2Paginator(req.build()).contents()) {
      if (o.key().equals(u.key()) || o.key().startsWith(prefix)) {
        keys.add(o.key());
      }
    }
    return keys;
  }

  private static SourceFiles openS3(String uri) throws IOException {
    S3Uri u = S3Uri.parse(uri);
    S3Client s3 = S3Clients.fromEnvironment();
    List<String> keys = s3Keys(s3, u);
    if (keys.isEmpty()) {
      throw new NoSuchFileException(uri, null, "no such S3 object or prefix");
    }
    Path tmp = Files.createTempDirectory("keel-source-");
    try {
      List<Entry> out = new ArrayList<>();
      for (String key : keys) {
        String rel =
            key.equals(u.key())
                ? key.substring(key.lastIndexOf('/') + 1)
                : key.substring(u.key().length()).replaceFirst("^/", "");
        if (rel.isEmpty() || rel.endsWith("/") || hidden(rel)) {
          continue;
        }
        Path dest = tmp.resolve(rel).normalize();
        if (!dest.startsWith(tmp)) {
          continue; // a key with ".." cannot escape the temporary directory
        }
        Files.createDirectories(dest.getParent());
        s3.getObject(GetObjectRequest.builder().bucket(u.bucket()).key(key).build(), dest);
        out.add(new Entry(rel, dest));
      }
      out.sort(Comparator.comparing(Entry::relative));
      return new SourceFiles(uri, out, tmp);
    } catch (IOException | RuntimeException e) {
      deleteTree(tmp);
      throw e;
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }
}
