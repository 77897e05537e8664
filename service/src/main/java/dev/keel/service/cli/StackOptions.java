package dev.keel.service.cli;

import dev.keel.activities.storage.StorageRoot;
import picocli.CommandLine.Option;

/** Where Temporal and the storage root are; shared by the commands. */
final class StackOptions {
  @Option(names = "--storage", paramLabel = "URI",
      description = "Storage root: a path, file:/// or s3://bucket/prefix (default: $KEEL_STORAGE or ./keel-data).")
  String storage;

  @Option(names = "--temporal", paramLabel = "HOST:PORT",
      description = "Temporal frontend (default: $TEMPORAL_ADDRESS; unset means the embedded dev server on 127.0.0.1).")
  String temporalAddress;

  StorageRoot storageRoot() {
    String s = storage != null ? storage : System.getenv().getOrDefault("KEEL_STORAGE", "keel-data");
    return StorageRoot.of(s);
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
