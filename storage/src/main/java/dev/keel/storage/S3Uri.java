package dev.keel.storage;

import java.net.URI;

/**
 * An {@code s3://bucket/key} (or {@code s3a://}) location. {@link #key()} has no leading slash;
 * {@link #prefix()} is the key with a trailing slash (empty for the bucket root).
 */
public record S3Uri(String bucket, String key) {

  public static boolean isS3(String uri) {
    return uri != null && (uri.startsWith("s3://") || uri.startsWith("s3a://"));
  }

  public static S3Uri parse(String uri) {
    if (!isS3(uri)) {
      throw new IllegalArgumentException("not an s3:// URI: " + uri);
    }
    String rest = uri.substring(uri.indexOf("://") + 3);
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String key = slash < 0 ? "" : rest.substring(slash + 1);
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException("s3 URI without a bucket: " + uri);
    }
    while (key.endsWith("/")) {
      key = key.substring(0, key.length() - 1);
    }
    return new S3Uri(bucket, key);
  }

  public static S3Uri of(URI uri) {
    return parse(uri.toString());
  }

  public String prefix() {
    return key.isEmpty() ? "" : key + "/";
  }

  public S3Uri resolve(String relative) {
    return new S3Uri(bucket, prefix() + relative);
  }

  @Override
  public String toString() {
    return "s3://" + bucket + "/" + key;
  }
}
