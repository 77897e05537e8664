package dev.keel.storage;

import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Checks at start-up that an {@code s3://} storage root can be listed with this process's AWS
 * settings, so a wrong credential, bucket, region or endpoint stops {@code keel dev/demo/worker}
 * with one line instead of failing the first pipeline. Local roots are created when first written.
 */
public final class StorageProbe {
  private StorageProbe() {}

  /** What is wrong with {@code root}, or empty when it is usable (or local). */
  public static Optional<String> problem(StorageRoot root) {
    if (!root.isS3()) {
      return Optional.empty();
    }
    S3Uri location = S3Uri.of(root.uri());
    S3Settings settings = S3Settings.fromEnvironment();
    try {
      S3Clients.get(settings).listObjectsV2(b -> b.bucket(location.bucket()).prefix(location.prefix()).maxKeys(1));
      return Optional.empty();
    } catch (SdkException | IllegalArgumentException e) {
      String why = StorageFailures.problem(e).orElseGet(() -> "cannot reach S3 ("
          + (settings.endpoint() == null ? "AWS" : settings.endpoint()) + "): " + oneLine(e.getMessage()));
      return Optional.of("storage " + root + ": " + why);
    }
  }

  private static String oneLine(String s) {
    if (s == null) {
      return "";
    }
    String line = s.replace('\n', ' ');
    return line.length() > 300 ? line.substring(0, 300) + "…" : line;
  }
}
