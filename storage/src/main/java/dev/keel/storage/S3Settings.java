package dev.keel.storage;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * How Keel reaches S3, from the usual AWS settings. This is the ONE place that reads them; {@link
 * S3Clients} builds SDK clients from it and {@link #hadoopProperties()} configures Hadoop's S3A
 * (Delta tables) the same way.
 *
 * <ul>
 *   <li>endpoint: {@code AWS_ENDPOINT_URL_S3}, else {@code AWS_ENDPOINT_URL} (system properties
 *       {@code aws.endpointUrlS3} / {@code aws.endpointUrl} first, as the AWS SDK does); unset
 *       means AWS itself. An overridden endpoint (S3Proxy, MinIO) gets path-style access.
 *   <li>region: {@code AWS_REGION} / {@code AWS_DEFAULT_REGION} ({@code aws.region}); {@code
 *       us-east-1} when an endpoint is set and no region is; otherwise the SDK's region chain.
 *   <li>credentials: the SDK's default provider chain (env {@code AWS_ACCESS_KEY_ID} / {@code
 *       AWS_SECRET_ACCESS_KEY}, {@code aws.accessKeyId} / {@code aws.secretAccessKey}, profiles,
 *       container and instance roles), unless static keys are given (tests).
 *   <li>single writer: {@code KEEL_S3_SINGLE_WRITER=true} ({@code keel.s3.singleWriter}) lets Keel
 *       commit tables on a store that ignores conditional PUT, which it otherwise refuses ({@link
 *       StoreGuarantees}); the user promises that one process at a time writes each table.
 * </ul>
 *
 * @param endpoint null for AWS itself
 * @param region null to let the SDK resolve it
 * @param accessKey null for the default credentials chain
 */
public record S3Settings(
    URI endpoint,
    String region,
    boolean pathStyle,
    String accessKey,
    String secretKey,
    boolean singleWriter) {

  public static final String DEFAULT_REGION_WITH_ENDPOINT = "us-east-1";

  // Hadoop S3A keys (kept here so the SDK client and S3A are configured from the same values)
  static final String S3A_ENDPOINT = "fs.s3a.endpoint";
  static final String S3A_REGION = "fs.s3a.endpoint.region";
  static final String S3A_PATH_STYLE = "fs.s3a.path.style.access";
  static final String S3A_SSL = "fs.s3a.connection.ssl.enabled";
  static final String S3A_ACCESS_KEY = "fs.s3a.access.key";
  static final String S3A_SECRET_KEY = "fs.s3a.secret.key";
  static final String S3A_CREDENTIALS_PROVIDER = "fs.s3a.aws.credentials.provider";
  static final String SINGLE_WRITER_KEY = "keel.s3.single-writer";

  public S3Settings {
    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException("S3 access key and secret key go together");
    }
  }

  /** The settings of this process: system properties first, then environment variables. */
  public static S3Settings fromEnvironment() {
    return from(System::getProperty, System::getenv);
  }

  static S3Settings from(Function<String, String> sysProps, Function<String, String> env) {
    String endpoint =
        first(
            sysProps.apply("aws.endpointUrlS3"), env.apply("AWS_ENDPOINT_URL_S3"),
            sysProps.apply("aws.endpointUrl"), env.apply("AWS_ENDPOINT_URL"));
    String region =
        first(
            sysProps.apply("aws.region"), env.apply("AWS_REGION"), env.apply("AWS_DEFAULT_REGION"));
    URI uri = null;
    if (endpoint != null) {
      uri = URI.create(endpoint);
      if (uri.getScheme() == null || uri.getHost() == null) {
        throw new IllegalArgumentException(
            "AWS_ENDPOINT_URL " + endpoint + ": expected a URL such as http://127.0.0.1:9000");
      }
      if (region == null) {
        region = DEFAULT_REGION_WITH_ENDPOINT;
      }
    }
    String single =
        first(sysProps.apply("keel.s3.singleWriter"), env.apply("KEEL_S3_SINGLE_WRITER"));
    return new S3Settings(uri, region, uri != null, null, null, single != null && isTrue(single));
  }

  private static boolean isTrue(String value) {
    return value.equalsIgnoreCase("true") || value.equals("1") || value.equalsIgnoreCase("yes");
  }

  /** Reads back what {@link #hadoopProperties()} wrote (used inside Hadoop plug-ins). */
  public static S3Settings fromHadoopProperties(Function<String, String> conf) {
    String endpoint = blankToNull(conf.apply(S3A_ENDPOINT));
    String region = blankToNull(conf.apply(S3A_REGION));
    boolean pathStyle = Boolean.parseBoolean(conf.apply(S3A_PATH_STYLE));
    String access = blankToNull(conf.apply(S3A_ACCESS_KEY));
    String secret = blankToNull(conf.apply(S3A_SECRET_KEY));
    return new S3Settings(
        endpoint == null ? null : URI.create(endpoint),
        region,
        pathStyle,
        access,
        secret,
        Boolean.parseBoolean(conf.apply(SINGLE_WRITER_KEY)));
  }

  /** The same settings with static credentials (tests, or a wrong key on purpose). */
  public S3Settings withStaticCredentials(String accessKey, String secretKey) {
    return new S3Settings(
        endpoint,
        region,
        pathStyle,
        Objects.requireNonNull(accessKey),
        Objects.requireNonNull(secretKey),
        singleWriter);
  }

  /** The same settings in single-writer mode (see the class comment), or not. */
  public S3Settings withSingleWriter(boolean on) {
    return new S3Settings(endpoint, region, pathStyle, accessKey, secretKey, on);
  }

  public AwsCredentialsProvider credentialsProvider() {
    return accessKey != null
        ? StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey))
        : DefaultCredentialsProvider.builder().build();
  }

  /**
   * Hadoop S3A properties for these settings ({@code fs.s3a.*}): endpoint, region, path style, TLS
   * from the endpoint's scheme, and credentials from the SDK's default chain (or the static keys).
   */
  public Map<String, String> hadoopProperties() {
    Map<String, String> p = new LinkedHashMap<>();
    if (endpoint != null) {
      p.put(S3A_ENDPOINT, endpoint.toString());
      p.put(S3A_SSL, Boolean.toString("https".equalsIgnoreCase(endpoint.getScheme())));
    }
    if (region != null) {
      p.put(S3A_REGION, region);
    }
    p.put(S3A_PATH_STYLE, Boolean.toString(pathStyle));
    if (accessKey != null) {
      p.put(S3A_ACCESS_KEY, accessKey);
      p.put(S3A_SECRET_KEY, secretKey);
      p.put(S3A_CREDENTIALS_PROVIDER, "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    } else {
      p.put(S3A_CREDENTIALS_PROVIDER, DefaultCredentialsProvider.class.getName());
    }
    p.put(SINGLE_WRITER_KEY, Boolean.toString(singleWriter));
    return p;
  }

  /** For messages: never prints the secret. */
  @Override
  public String toString() {
    return "S3Settings[endpoint="
        + (endpoint == null ? "AWS" : endpoint)
        + ", region="
        + (region == null ? "(SDK default)" : region)
        + ", pathStyle="
        + pathStyle
        + ", credentials="
        + (accessKey == null ? "default chain" : "static " + accessKey)
        + (singleWriter ? ", single writer" : "")
        + "]";
  }

  private static String first(String... values) {
    for (String v : values) {
      if (v != null && !v.isBlank()) {
        return v.strip();
      }
    }
    return null;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }
}
