package dev.keel.storage;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import java.nio.file.AccessDeniedException;
import java.util.Optional;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * Turns "this storage cannot be used" errors (access denied, wrong or missing credentials, no such
 * bucket, read-only root) into a non-retryable {@link KeelFailure} with a one-line message naming
 * the URI: retrying cannot fix them, and a stack trace does not help whoever fixes them. Connection
 * errors and throttling are left alone (retryable).
 */
public final class StorageFailures {
  /** Failure type of an unusable storage root. */
  private static final String NO_CREDENTIALS =
      "no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE";

  /**
   * Temporal's failures (an activity's own typed failure), named rather than imported: storage runs
   * without Temporal.
   */
  private static final String TEMPORAL_FAILURES = "io.temporal.failure.";

  private StorageFailures() {}

  /** What is wrong with the storage, if {@code error} (or a cause) says it is unusable. */
  public static Optional<String> problem(Throwable error) {
    // the S3 service's own answer is the most precise; Hadoop wraps it in IOExceptions
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof KeelFailure || t.getClass().getName().startsWith(TEMPORAL_FAILURES)) {
        return Optional.empty(); // already says what it is
      }
      if (t instanceof StoreGuarantees.UnsafeStoreException) {
        return Optional.of(t.getMessage());
      }
      if (t instanceof AwsServiceException e) {
        String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
        int status = e.statusCode();
        if ("SignatureDoesNotMatch".equals(code)) {
          // the server knows the access key: only the secret paired with it can be wrong
          return Optional.of(
              "access denied ("
                  + status
                  + " "
                  + code
                  + "): the secret key does not match the access key;"
                  + " check AWS_SECRET_ACCESS_KEY (or aws_secret_access_key of the AWS_PROFILE in use)");
        }
        if ("InvalidAccessKeyId".equals(code)) {
          return Optional.of(
              "access denied ("
                  + status
                  + " "
                  + code
                  + "): the server does not know the access key;"
                  + " check AWS_ACCESS_KEY_ID (or the AWS_PROFILE in use)");
        }
        if (status == 403) {
          return Optional.of(
              "access denied ("
                  + status
                  + (code == null ? "" : " " + code)
                  + "): check the AWS credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or AWS_PROFILE) and the bucket policy");
        }
        if ("NoSuchBucket".equals(code)) {
          return Optional.of("the bucket does not exist");
        }
        if (status == 301
            || "PermanentRedirect".equals(code)
            || "AuthorizationHeaderMalformed".equals(code)) {
          return Optional.of("wrong region (" + code + "): set AWS_REGION to the bucket's region");
        }
      }
    }
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SdkClientException
          && t.getMessage() != null
          && t.getMessage().contains("Unable to load credentials")) {
        return Optional.of(NO_CREDENTIALS);
      }
      String cls = t.getClass().getName();
      if (cls.equals("org.apache.hadoop.fs.s3a.auth.NoAuthWithAWSException")) {
        return Optional.of(NO_CREDENTIALS);
      }
      if (cls.equals("org.apache.hadoop.fs.s3a.UnknownStoreException")) {
        return Optional.of("the bucket does not exist");
      }
      if (t instanceof AccessDeniedException) {
        return Optional.of(
            "access denied ("
                + firstLine(t.getMessage())
                + "): check the credentials and that the storage root is writable");
      }
    }
    return Optional.empty();
  }

  /**
   * The non-retryable failure for {@code error} at {@code uri}, or empty when it may be transient.
   */
  public static Optional<KeelFailure> nonRetryable(String uri, Throwable error) {
    return problem(error)
        .map(
            p ->
                KeelFailure.nonRetryable(
                    "storage " + uri + ": " + p, FailureTypes.STORAGE_UNUSABLE));
  }

  /**
   * Rethrows {@code error} as the non-retryable failure if the storage is unusable; else returns
   * it.
   */
  public static RuntimeException translate(String uri, RuntimeException error) {
    Optional<KeelFailure> f = nonRetryable(uri, error);
    return f.isPresent() ? f.get() : error;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    String line = nl < 0 ? s : s.substring(0, nl);
    return line.length() > 200 ? line.substring(0, 200) + "…" : line;
  }
}
