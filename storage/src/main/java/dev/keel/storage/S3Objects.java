package dev.keel.storage;

import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Small questions about single S3 objects. */
public final class S3Objects {
  private S3Objects() {}

  /**
   * Whether {@code bucket/key} exists (a HEAD request; some servers answer a missing key with a
   * bare 404 instead of {@code NoSuchKey}).
   *
   * @throws S3Exception for any other answer (access denied, no bucket, ...)
   */
  public static boolean exists(S3Client s3, String bucket, String key) {
    try {
      s3.headObject(b -> b.bucket(bucket).key(key));
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw e;
    }
  }
}
