package dev.keel.service.cli;

import dev.keel.service.dev.DevStack;
import dev.keel.service.dev.TemporalCliServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageProbe;
import dev.keel.storage.StorageRoot;
import java.util.Optional;
import java.util.function.Function;
import picocli.CommandLine.Option;

/**
 * Where Temporal and the storage root are; shared by the commands. Every command accepts {@code
 * --temporal} and {@code --storage}, but what they mean (and default to) differs: each command
 * mixes in the subclass whose help is true for it, and an option it does not use is accepted
 * (scripts pass both everywhere) but left out of its help.
 */
abstract class StackOptions {
  /** Where {@code keel dev} serves Temporal, for client commands given no address. */
  static final String DEV_ADDRESS = "127.0.0.1:7233";

  static final String STORAGE_URI = "a path, file:/// or s3://bucket/prefix";
  static final String S3_SETTINGS =
      "S3 uses the usual AWS settings: AWS_ENDPOINT_URL(_S3), AWS_REGION, "
          + "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE.";
  static final String CLIENT_TEMPORAL =
      "Temporal frontend to talk to (default: $TEMPORAL_ADDRESS, else "
          + DEV_ADDRESS
          + ", where keel dev listens).";

  String storage;
  String temporalAddress;

  /**
   * The address the command connected to, which {@link FriendlyErrors} names when it cannot be
   * reached.
   */
  private String contacted;

  /** Commands that talk to Temporal and read the storage root's catalog, registry or tables. */
  static final class Client extends StackOptions {
    @Option(names = "--temporal", paramLabel = "HOST:PORT", description = CLIENT_TEMPORAL)
    void temporal(String address) {
      temporalAddress = address;
    }

    @Option(
        names = "--storage",
        paramLabel = "URI",
        description =
            "Storage root to read: "
                + STORAGE_URI
                + " (default: $KEEL_STORAGE or ./keel-data). "
                + S3_SETTINGS)
    void storage(String uri) {
      storage = uri;
    }
  }

  /** {@code keel serve}: the REST API of a cluster. */
  static final class Serve extends StackOptions {
    @Option(names = "--temporal", paramLabel = "HOST:PORT", description = CLIENT_TEMPORAL)
    void temporal(String address) {
      temporalAddress = address;
    }

    @Option(
        names = "--storage",
        paramLabel = "URI",
        description =
            "Storage root the API reads, and which the runs it"
                + " starts carry: "
                + STORAGE_URI
                + " (default: $KEEL_STORAGE or ./keel-data). "
                + S3_SETTINGS)
    void storage(String uri) {
      storage = uri;
    }
  }

  /** Commands that only talk to Temporal (pipelines, signals, schedules, pools). */
  static final class TemporalOnly extends StackOptions {
    @Option(names = "--temporal", paramLabel = "HOST:PORT", description = CLIENT_TEMPORAL)
    void temporal(String address) {
      temporalAddress = address;
    }

    @Option(names = "--storage", hidden = true, description = "Not used by this command.")
    void storage(String uri) {
      storage = uri;
    }
  }

  /** Commands that only read the storage root (no Temporal needed). */
  static final class StorageOnly extends StackOptions {
    @Option(names = "--temporal", hidden = true, description = "Not used by this command.")
    void temporal(String address) {
      temporalAddress = address;
    }

    @Option(
        names = "--storage",
        paramLabel = "URI",
        description =
            "Storage root: "
                + STORAGE_URI
                + " (default: $KEEL_STORAGE or ./keel-data). "
                + S3_SETTINGS)
    void storage(String uri) {
      storage = uri;
    }
  }

  /**
   * Commands that start a run on a running Keel's workers ({@code submit}, {@code experiment
   * create}).
   */
  static final class Starting extends StackOptions {
    @Option(names = "--temporal", paramLabel = "HOST:PORT", description = CLIENT_TEMPORAL)
    void temporal(String address) {
      temporalAddress = address;
    }

    @Option(
        names = "--storage",
        paramLabel = "URI",
        description =
            "Storage root for the run: "
                + STORAGE_URI
                + ". A root named here or in $KEEL_STORAGE travels with the run, and its workers refuse it unless they serve"
                + " that root; with neither, the run uses its workers' own root. "
                + S3_SETTINGS)
    void storage(String uri) {
      storage = uri;
    }
  }

  /** {@code keel dev}: starts a Temporal server (or uses a cluster) and every worker. */
  static final class Dev extends StackOptions {
    @Option(
        names = "--temporal",
        paramLabel = "cli|embedded|HOST:PORT",
        description = {
          "cli: the Temporal CLI's durable dev server (web UI on 127.0.0.1:8233); embedded: Temporal's Java test server,"
              + " in memory; HOST:PORT: a cluster's frontend (default: $TEMPORAL_ADDRESS, else cli when a temporal"
              + " binary is in .tools/ or on the PATH, else embedded)."
        })
    void temporal(String address) {
      temporalAddress = address;
    }

    @Option(
        names = "--storage",
        paramLabel = "URI",
        description =
            "Storage root the workers write: "
                + STORAGE_URI
                + " (default: $KEEL_STORAGE or ./keel-data). "
                + S3_SETTINGS)
    void storage(String uri) {
      storage = uri;
    }
  }

  /** {@code keel demo}: a running {@code keel dev}, a cluster, or a stack of its own. */
  static final class Demo extends StackOptions {
    @Option(
        names = "--temporal",
        paramLabel = "cli|embedded|HOST:PORT",
        description = {
          "When no keel dev runs: cli (the Temporal CLI's durable dev server) or embedded (Temporal's Java test server,"
              + " in memory) for the demo's own stack, or HOST:PORT of a cluster's frontend to start the run on"
              + " (default: $TEMPORAL_ADDRESS, else cli when a temporal binary is in .tools/ or on the PATH, else"
              + " embedded)."
        })
    void temporal(String address) {
      temporalAddress = address;
    }

    @Option(
        names = "--storage",
        paramLabel = "URI",
        description =
            "Storage root of the run: "
                + STORAGE_URI
                + " (default: the root of the keel dev running on "
                + DEV_ADDRESS
                + ", which refuses another; else"
                + " $KEEL_STORAGE or ./keel-data). "
                + S3_SETTINGS)
    void storage(String uri) {
      storage = uri;
    }
  }

  /** {@code keel worker}: serves a cluster's task queues on one storage root. */
  static final class Worker extends StackOptions {
    @Option(
        names = "--temporal",
        paramLabel = "HOST:PORT",
        description =
            "Temporal frontend whose task queues to"
                + " serve (default: $TEMPORAL_ADDRESS; one of the two is required).")
    void temporal(String address) {
      temporalAddress = address;
    }

    @Option(
        names = "--storage",
        paramLabel = "URI",
        description =
            "Storage root the worker serves: "
                + STORAGE_URI
                + " (default: $KEEL_STORAGE or ./keel-data). "
                + S3_SETTINGS)
    void storage(String uri) {
      storage = uri;
    }
  }

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
   * The storage root of a process that writes (dev, demo, worker): on top of {@link
   * #storageRoot()}, an object can be written and deleted there, and an {@code s3://} store refuses
   * a second conditional PUT of one object, so concurrent table commits cannot be lost (or the user
   * chose {@code KEEL_S3_SINGLE_WRITER=true}).
   *
   * @throws IllegalArgumentException one line naming the root and what is wrong with it
   */
  StorageRoot writableStorageRoot() {
    return checked(StorageProbe::problemForWriting);
  }

  /**
   * The root the user named with {@code --storage} or {@code $KEEL_STORAGE} (readable, as {@link
   * #storageRoot()}), or empty when they named none and {@code ./keel-data} would only be the
   * default.
   */
  Optional<StorageRoot> namedStorageRoot() {
    return storage != null || System.getenv("KEEL_STORAGE") != null
        ? Optional.of(storageRoot())
        : Optional.empty();
  }

  private StorageRoot checked(Function<StorageRoot, Optional<String>> probe) {
    String location =
        storage != null ? storage : System.getenv().getOrDefault("KEEL_STORAGE", "keel-data");
    StorageRoot root = StorageRoot.of(location);
    probe
        .apply(root)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException(p);
            });
    return root;
  }

  /**
   * Null when no cluster is configured ({@code cli} and {@code embedded} name local servers, not
   * addresses).
   */
  String temporalAddressOrNull() {
    if (temporalAddress != null && !temporalAddress.isBlank() && !isBackendName(temporalAddress)) {
      return temporalAddress;
    }
    String env = System.getenv("TEMPORAL_ADDRESS");
    return env == null || env.isBlank() ? null : env;
  }

  /**
   * HOST:PORT a client command talks to: {@code --temporal}, {@code $TEMPORAL_ADDRESS}, else {@code
   * keel dev}'s.
   */
  String clientAddress() {
    String address = temporalAddressOrNull();
    return address == null ? DEV_ADDRESS : address;
  }

  /** A connection to {@link #clientAddress()}. */
  TemporalConnection open() {
    return open(clientAddress());
  }

  /** A connection to {@code address} (made at its first call), which an error then names. */
  TemporalConnection open(String address) {
    return TemporalConnection.owning(KeelWorkerHost.connect(contacting(address)));
  }

  /**
   * Remembers {@code address} as the Temporal this command talks to, for an error that cannot reach
   * it.
   */
  String contacting(String address) {
    contacted = address;
    return address;
  }

  /** The Temporal address this command talked to, when it got as far. */
  Optional<String> contacted() {
    return Optional.ofNullable(contacted);
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
    return s.equalsIgnoreCase("cli")
        || s.equalsIgnoreCase("embedded")
        || s.equalsIgnoreCase("auto");
  }
}
