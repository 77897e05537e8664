package dev.keel.service.cli;

import dev.keel.service.dev.DevStack;
import dev.keel.service.dev.TemporalCliServer;
import dev.keel.storage.StorageProbe;
import dev.keel.storage.StorageRoot;
import java.util.Optional;
import java.util.function.Function;
import picocli.CommandLine.Option;

/** Where Temporal and the storage root are; shared by the commands. */
final class StackOptions {
  @Option(names = "--storage", paramLabel = "URI",
      description = "Storage root: a path, file:/// or s3://bucket/prefix (default: $KEEL_STORAGE or ./keel-data). "
          + "S3 uses the usual AWS settings: AWS_ENDPOINT_URL(_S3), AWS_REGION, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE.")
  String storage;

  @Option(names = "--temporal", paramLabel = "cli|embedded|HOST:PORT",
      description = {"Temporal: HOST:PORT of a frontend (default: $TEMPORAL_ADDRESS). For dev and demo also",
          "cli (the Temporal CLI's durable dev server, web UI on 127.0.0.1:8233) or embedded (Java test server, in memory);",
          "unset, they use cli when a temporal binary is in .tools/ or on the PATH, else embedded."})
  String temporalAddress;

  /**
   * The storage root; an {@code s3://} root must be listable with the AWS settings of this process
   * ({@code AWS_ENDPOINT_URL}, {@code AWS_REGION}, credentials from the default chain).
   *
   * @throws IllegalArgumentException one line naming the root and what is wrong with it
   */
  StorageRoot storageRoot() {
    return checked(StorageProbe::problem);
  }

  /**
   * The storage root of a process that writes (dev, demo, worker): on top of {@link #storageRoot()},
   * an object can be written and deleted there, and an {@code s3://} store refuses a second
   * conditional PUT of one object, so concurrent table commits cannot be lost (or the user chose
   * {@code KEEL_S3_SINGLE_WRITER=true}).
   *
   * @throws IllegalArgumentException one line naming the root and what is wrong with it
   */
  StorageRoot writableStorageRoot() {
    return checked(StorageProbe::problemForWriting);
  }

  /**
   * The root the user named with {@code --storage} or {@code $KEEL_STORAGE} (readable, as {@link
   * #storageRoot()}), or empty when they named none and {@code ./keel-data} would only be the default.
   */
  Optional<StorageRoot> namedStorageRoot() {
    return storage != null || System.getenv("KEEL_STORAGE") != null ? Optional.of(storageRoot()) : Optional.empty();
  }

  private StorageRoot checked(Function<StorageRoot, Optional<String>> probe) {
    String location = storage != null ? storage : System.getenv().getOrDefault("KEEL_STORAGE", "keel-data");
    StorageRoot root = StorageRoot.of(location);
    probe.apply(root).ifPresent(p -> {
      throw new IllegalArgumentException(p);
    });
    return root;
  }

  /** Null when no cluster is configured ({@code cli} and {@code embedded} name local servers, not addresses). */
  String temporalAddressOrNull() {
    if (temporalAddress != null && !temporalAddress.isBlank() && !isBackendName(temporalAddress)) {
      return temporalAddress;
    }
    String env = System.getenv("TEMPORAL_ADDRESS");
    return env == null || env.isBlank() ? null : env;
  }

  /** The backend a dev stack should start: an explicit choice, a configured address, or auto. */
  DevStack.Backend backend() {
    if (temporalAddress != null && isBackendName(temporalAddress)) {
      return DevStack.Backend.choose(temporalAddress, TemporalCliServer.locate());
    }
    if (temporalAddressOrNull() != null) {
      return DevStack.Backend.REMOTE;
    }
    return DevStack.Backend.choose(null, TemporalCliServer.locate());
  }

  private static boolean isBackendName(String s) {
    return s.equalsIgnoreCase("cli") || s.equalsIgnoreCase("embedded") || s.equalsIgnoreCase("auto");
  }
}
