package dev.keel.storage;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * What an S3 store guarantees to Keel's table commits, found by trying it: Delta commits on S3 are
 * safe with several writers only if a PUT with {@code If-None-Match: *} fails (412) when the object
 * exists. AWS S3, MinIO and S3Proxy do that; some servers (older MinIO releases, moto 5.0,
 * appliances) accept the header and overwrite, and two writers then lose commits without an error.
 *
 * <p>The probe writes one object under the location with {@code If-None-Match: *}, writes it again
 * the same way, and deletes it: it also shows that the credentials may write and delete there. It
 * runs once per bucket and settings in a process ({@link #of}); a store found unsafe is refused for
 * table commits ({@link #requireSafeCommits}) unless the user chose single-writer mode.
 *
 * @param conditionalPut the second conditional write was refused
 * @param probeMillis what the probe cost (three requests)
 */
public record StoreGuarantees(boolean conditionalPut, long probeMillis) {
  private static final Map<Key, StoreGuarantees> PROBED = new ConcurrentHashMap<>();

  private record Key(S3Settings settings, String bucket) {}

  /**
   * The guarantees of the store holding {@code location}, probed there the first time this process
   * asks.
   */
  public static StoreGuarantees of(S3Settings settings, S3Uri location) {
    Key key = new Key(settings.withSingleWriter(false), location.bucket());
    StoreGuarantees known = PROBED.get(key);
    if (known != null) {
      return known;
    }
    StoreGuarantees probed = probe(S3Clients.get(settings), location);
    PROBED.putIfAbsent(key, probed);
    return probed;
  }

  /** Probes {@code location} now, without the cache. */
  public static StoreGuarantees probe(S3Client s3, S3Uri location) {
    String key = location.prefix() + "_keel_probe/" + UUID.randomUUID();
    long t0 = System.nanoTime();
    put(s3, location.bucket(), key, "first");
    boolean conditional;
    try {
      put(s3, location.bucket(), key, "second");
      conditional = false;
    } catch (S3Exception e) {
      // 409 ConditionalRequestConflict: the server saw a conditional write in flight, so it checks
      // them
      if (e.statusCode() != 412 && e.statusCode() != 409) {
        throw e;
      }
      conditional = true;
    } finally {
      s3.deleteObject(b -> b.bucket(location.bucket()).key(key));
    }
    return new StoreGuarantees(conditional, (System.nanoTime() - t0) / 1_000_000);
  }

  /**
   * Throws unless Delta commits at {@code table} cannot be lost silently: the store honours
   * conditional PUT, or {@code settings} chose single-writer mode.
   *
   * @return whether the commit runs in single-writer mode on a store without conditional PUT (the
   *     commit should say so)
   * @throws UnsafeStoreException one line saying why and what to do
   */
  public static boolean requireSafeCommits(S3Settings settings, S3Uri table) {
    if (of(settings, table).conditionalPut()) {
      return false;
    }
    if (settings.singleWriter()) {
      return true;
    }
    throw new UnsafeStoreException(unsafeMessage(settings));
  }

  /** Why a store without conditional PUT is refused, and the two ways out. */
  private static String unsafeMessage(S3Settings settings) {
    return "the S3 server ("
        + (settings.endpoint() == null ? "AWS" : settings.endpoint())
        + ") ignores If-None-Match on PUT (a second conditional write of one object succeeded), so two writers"
        + " could overwrite each other's table commits without an error; use a server that honours conditional"
        + " writes (AWS S3, MinIO, S3Proxy), or set KEEL_S3_SINGLE_WRITER=true if only one process at a time"
        + " writes to this storage root (each commit then records it)";
  }

  private static void put(S3Client s3, String bucket, String key, String body) {
    s3.putObject(b -> b.bucket(bucket).key(key).ifNoneMatch("*"), RequestBody.fromString(body));
  }

  /** A store that cannot keep concurrent commits apart, used without single-writer mode. */
  public static final class UnsafeStoreException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public UnsafeStoreException(String message) {
      super(message);
    }
  }
}
