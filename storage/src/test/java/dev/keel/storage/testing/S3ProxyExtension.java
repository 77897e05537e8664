package dev.keel.storage.testing;

import dev.keel.storage.S3Clients;
import dev.keel.storage.S3Settings;
import java.net.URI;
import java.util.Locale;
import java.util.UUID;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An in-memory S3 (S3Proxy, transient store) on 127.0.0.1 and a random port, one per test JVM (or,
 * with {@code -Dkeel.test.s3.server=minio|moto}, a MinIO or moto server process: {@link
 * ExternalS3Server}), configured the way users configure Keel: {@code aws.endpointUrl}, {@code
 * aws.region}, {@code aws.accessKeyId} and {@code aws.secretAccessKey} system properties (the AWS
 * SDK's equivalents of {@code AWS_ENDPOINT_URL}, {@code AWS_REGION}, {@code AWS_ACCESS_KEY_ID},
 * {@code AWS_SECRET_ACCESS_KEY}), so code under test reads them through {@link
 * S3Settings#fromEnvironment()}.
 *
 * <p>One server per JVM because Hadoop caches one S3A file system per bucket for the JVM's life: a
 * second server on another port would be invisible to it. Use a fresh {@link #newBucket} per test.
 *
 * <pre>
 * {@code @ExtendWith(S3ProxyExtension.class) class MyTest { ... S3ProxyExtension.newBucket("t") ... }}
 * </pre>
 */
public final class S3ProxyExtension implements BeforeAllCallback {
  public static final String ACCESS_KEY = "keel-test-access";
  public static final String SECRET_KEY = "keel-test-secret";
  public static final String REGION = "us-east-1";

  /** System property naming the server: s3proxy (default), minio or moto. */
  public static final String SERVER_PROPERTY = "keel.test.s3.server";

  private static URI endpoint;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    start();
  }

  /** Starts the JVM's server (once) and points the AWS system properties at it. */
  public static synchronized URI start() throws Exception {
    if (endpoint == null) {
      String server = System.getProperty(SERVER_PROPERTY, "s3proxy");
      if (server.equals("s3proxy")) {
        S3Proxy p = startServer(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY);
        endpoint = URI.create("http://127.0.0.1:" + p.getPort());
      } else {
        endpoint = ExternalS3Server.start(server, ACCESS_KEY, SECRET_KEY);
        pointAwsPropertiesHere();
        awaitReady(server);
      }
    }
    pointAwsPropertiesHere();
    return endpoint;
  }

  /**
   * The server the S3 tests of this JVM use: s3proxy (default), minio or moto (see {@link
   * ExternalS3Server}).
   */
  public static String server() {
    return System.getProperty(SERVER_PROPERTY, "s3proxy");
  }

  private static void pointAwsPropertiesHere() {
    pointAwsProperties(endpoint, ACCESS_KEY, SECRET_KEY);
  }

  /** Points the {@code aws.*} system properties (the settings Keel reads) at {@code server}. */
  static void pointAwsProperties(URI server, String accessKey, String secretKey) {
    System.setProperty("aws.endpointUrl", server.toString());
    System.setProperty("aws.region", REGION);
    System.setProperty("aws.accessKeyId", accessKey);
    System.setProperty("aws.secretAccessKey", secretKey);
  }

  /** A server process may listen before it serves requests. */
  private static void awaitReady(String server) throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (true) {
      try {
        client().listBuckets();
        return;
      } catch (RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              server + " at " + endpoint + " does not answer ListBuckets: " + e.getMessage(), e);
        }
        Thread.sleep(200);
      }
    }
  }

  /**
   * Starts an S3Proxy over a transient in-memory store on 127.0.0.1 and a free port, stopped when
   * the JVM exits.
   */
  static S3Proxy startServer(AuthenticationType auth, String accessKey, String secretKey)
      throws Exception {
    S3Proxy p =
        S3Proxy.builder()
            .blobStore(new TransientNio2BlobStore())
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(auth, accessKey, secretKey)
            .build();
    p.start();
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!"STARTED".equals(p.getState())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("S3Proxy did not start: " + p.getState());
      }
      Thread.sleep(10);
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    p.stop();
                  } catch (Exception ignored) {
                    // JVM exit
                  }
                },
                "s3proxy-stop"));
    return p;
  }

  public static URI endpoint() {
    if (endpoint == null) {
      throw new IllegalStateException("S3ProxyExtension not started");
    }
    return endpoint;
  }

  /** The settings tests use (the same the code under test reads from the system properties). */
  public static S3Settings settings() {
    endpoint();
    return S3Settings.fromEnvironment();
  }

  public static S3Client client() {
    return S3Clients.get(settings());
  }

  /** Creates a bucket with a unique name starting with {@code prefix} and returns its name. */
  public static String newBucket(String prefix) {
    String name =
        (prefix + "-" + UUID.randomUUID().toString().substring(0, 8)).toLowerCase(Locale.ROOT);
    client().createBucket(b -> b.bucket(name));
    return name;
  }
}
