package dev.keel.service.cli;

import dev.keel.activities.storage.StorageProbe;
import dev.keel.activities.storage.StorageRoot;
import picocli.CommandLine.Option;

/** Where Temporal and the storage root are; shared by the commands. */
final class StackOptions {
  @Option(names = "--storage", paramLabel = "URI",
      description = "Storage root: a path, file:/// or s3://bucket/prefix (default: $KEEL_STORAGE or ./keel-data). "
          + "S3 uses the usual AWS settings: AWS_ENDPOINT_URL(_S3), AWS_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE.")
  String storage;

  @Option(names = "--temporal", paramLabel = "HOST:PORT",
      description = "Temporal frontend (default: $TEMPORAL_ADDRESS; unset means the embedded dev server on 127.0.0.1).")
  String temporalAddress;

  /**
   * The storage root; an {@code s3://} root must be listable with the AWS settings of this process
   * ({@code AWS_ENDPOINT_URL}, {@code AWS_REGION}, credentials from the default chain).
   *
   * @throws IllegalArgumentException one line naming the root and what is wrong with it
   */
  StorageRoot storageRoot() {
    String s = storage != null ? storage : System.getenv().getOrDefault("KEEL_STORAGE", "keel-data");
    StorageRoot root = StorageRoot.of(s);
    StorageProbe.problem(root).ifPresent(p -> {
      throw new IllegalArgumentException(p);
    });
    return root;
  }

  /** Null when no cluster is configured. */
  String temporalAddressOrNull() {
    if (temporalAddress != null && !temporalAddress.isBlank()) {
      return temporalAddress;
    }
    String env = System.getenv("TEMPORAL_ADDRESS");
    return env == null || env.isBlank() ? null : env;
  }
}
