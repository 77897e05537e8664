package dev.keel.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Checks at start-up that a storage root can be used with this process's settings, so a wrong
 * credential, bucket, region or endpoint, a read-only root or a store that could lose commits stops
 * {@code keel dev/demo/worker} with one line instead of failing the first pipeline half-way.
 */
public final class StorageProbe {
  private StorageProbe() {}

  /**
   * What keeps {@code root} from being read, or empty when it can be (an {@code s3://} root can be
   * listed; local roots are created when first written). For commands that only read.
   */
  public static Optional<String> problem(StorageRoot root) {
    if (!root.isS3()) {
      return Optional.empty();
    }
    S3Settings settings = S3Settings.fromEnvironment();
    S3Uri location = S3Uri.of(root.uri());
    try {
      S3Clients.get(settings)
          .listObjectsV2(b -> b.bucket(location.bucket()).prefix(location.prefix()).maxKeys(1));
      return Optional.empty();
    } catch (SdkException | IllegalArgumentException e) {
      return Optional.of(failed(root, settings, "", e));
    }
  }

  /**
   * What keeps {@code root} from being written by Keel, or empty when it can be: on top of {@link
   * #problem}, an object (a file) can be written and deleted there and, on S3, the store refuses a
   * second conditional PUT of one object ({@link StoreGuarantees}; single-writer mode accepts a
   * store that does not). For the processes that write: {@code dev}, {@code demo}, {@code worker}.
   */
  public static Optional<String> problemForWriting(StorageRoot root) {
    Optional<String> unreadable = problem(root);
    if (unreadable.isPresent()) {
      return unreadable;
    }
    if (root.isLocal()) {
      return localProblem(root);
    }
    S3Settings settings = S3Settings.fromEnvironment();
    try {
      StoreGuarantees.requireSafeCommits(settings, S3Uri.of(root.uri()));
      return Optional.empty();
    } catch (StoreGuarantees.UnsafeStoreException e) {
      return Optional.of("storage " + root + ": " + e.getMessage());
    } catch (SdkException | IllegalArgumentException e) {
      return Optional.of(failed(root, settings, "cannot write: ", e));
    }
  }

  private static Optional<String> localProblem(StorageRoot root) {
    Path dir = root.localPath();
    try {
      Files.createDirectories(dir);
      Files.delete(Files.createTempFile(dir, ".keel-probe-", ""));
      return Optional.empty();
    } catch (IOException | SecurityException e) {
      return Optional.of(
          "storage "
              + root
              + ": cannot write there ("
              + e.getClass().getSimpleName()
              + ": "
              + oneLine(e.getMessage())
              + ")");
    }
  }

  private static String failed(StorageRoot root, S3Settings settings, String doing, Exception e) {
    String why =
        StorageFailures.problem(e)
            .orElseGet(
                () ->
                    "cannot reach S3 ("
                        + (settings.endpoint() == null ? "AWS" : settings.endpoint())
                        + "): "
                        + oneLine(e.getMessage()));
    return "storage " + root + ": " + doing + why;
  }

  private static String oneLine(String s) {
    if (s == null) {
      return "";
    }
    String line = s.replace('\n', ' ');
    return line.length() > 300 ? line.substring(0, 300) + "…" : line;
  }
}
