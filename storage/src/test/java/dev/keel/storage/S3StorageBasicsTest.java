package dev.keel.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.storage.testing.S3ProxyExtension;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Settings from the AWS variables, S3 URIs, and what the embedded S3 server supports. */
@ExtendWith(S3ProxyExtension.class)
class S3StorageBasicsTest {

  @Test
  void settingsFollowTheAwsVariables() {
    Map<String, String> env = Map.of("AWS_ENDPOINT_URL", "http://127.0.0.1:9000");
    S3Settings s = S3Settings.from(k -> null, env::get);
    assertEquals(URI.create("http://127.0.0.1:9000"), s.endpoint());
    assertEquals("us-east-1", s.region(), "an endpoint without a region defaults to us-east-1");
    assertTrue(s.pathStyle());
    assertEquals("http://127.0.0.1:9000", s.hadoopProperties().get("fs.s3a.endpoint"));
    assertEquals("false", s.hadoopProperties().get("fs.s3a.connection.ssl.enabled"));
    assertEquals("true", s.hadoopProperties().get("fs.s3a.path.style.access"));

    Map<String, String> env2 =
        Map.of(
            "AWS_ENDPOINT_URL",
            "http://a:1",
            "AWS_ENDPOINT_URL_S3",
            "https://b:2",
            "AWS_REGION",
            "eu-west-1");
    S3Settings s2 = S3Settings.from(k -> null, env2::get);
    assertEquals(URI.create("https://b:2"), s2.endpoint(), "the S3-specific endpoint wins");
    assertEquals("eu-west-1", s2.region());
    assertEquals("true", s2.hadoopProperties().get("fs.s3a.connection.ssl.enabled"));

    S3Settings aws = S3Settings.from(k -> null, k -> null);
    assertNull(aws.endpoint());
    assertNull(aws.region());
    assertFalse(aws.pathStyle());
    assertEquals(aws, S3Settings.fromHadoopProperties(aws.hadoopProperties()::get));
    assertEquals(s2, S3Settings.fromHadoopProperties(s2.hadoopProperties()::get));
  }

  @Test
  void storageRootResolvesTablesAndCheckpointsUnderThePrefix() {
    StorageRoot root = StorageRoot.of("s3://bucket/some/prefix/");
    assertFalse(root.isLocal());
    assertEquals("s3://bucket/some/prefix/tables/fashion", root.table("fashion"));
    assertEquals("s3://bucket/some/prefix/checkpoints", root.checkpoints());
    assertEquals("s3://bucket/tables/t", StorageRoot.of("s3a://bucket").table("t"));
    assertEquals(
        new S3Uri("bucket", "some/prefix/checkpoints"), S3Uri.parse(root.checkpoints() + "/"));
    assertThrows(IllegalArgumentException.class, () -> StorageRoot.of("s3:///nobucket"));
  }

  @Test
  void embeddedServerRefusesASecondConditionalPut() {
    S3Client s3 = S3ProxyExtension.client();
    String bucket = S3ProxyExtension.newBucket("basics");
    s3.putObject(b -> b.bucket(bucket).key("k").ifNoneMatch("*"), RequestBody.fromString("one"));
    S3Exception e =
        assertThrows(
            S3Exception.class,
            () ->
                s3.putObject(
                    b -> b.bucket(bucket).key("k").ifNoneMatch("*"),
                    RequestBody.fromString("two")));
    assertEquals(412, e.statusCode());
    assertEquals("one", s3.getObjectAsBytes(b -> b.bucket(bucket).key("k")).asUtf8String());
  }

  @Test
  void probeAcceptsAListableRootAndNamesWhatIsWrongOtherwise() {
    String bucket = S3ProxyExtension.newBucket("probe");
    assertTrue(StorageProbe.problem(StorageRoot.of("s3://" + bucket + "/keel")).isEmpty());
    assertTrue(
        StorageProbe.problem(StorageRoot.of("./anything")).isEmpty(),
        "local roots are created on demand");
    assertEquals(
        "storage s3://keel-absent-bucket/keel: the bucket does not exist",
        StorageProbe.problem(StorageRoot.of("s3://keel-absent-bucket/keel")).orElseThrow());
  }

  @Tag("s3-credentials") // moto checks no credentials: not run against it
  @Test
  void wrongCredentialsBecomeOneNonRetryableLine() {
    S3Client bad =
        S3Clients.get(S3ProxyExtension.settings().withStaticCredentials("nobody", "wrong"));
    String bucket = S3ProxyExtension.newBucket("denied");
    RuntimeException e =
        assertThrows(
            RuntimeException.class,
            () -> bad.putObject(b -> b.bucket(bucket).key("x"), RequestBody.fromString("x")));
    KeelFailure f = StorageFailures.nonRetryable("s3://" + bucket + "/x", e).orElseThrow();
    assertFalse(f.retryable());
    assertEquals(FailureTypes.STORAGE_UNUSABLE, f.type());
    assertTrue(
        f.getMessage().startsWith("storage s3://" + bucket + "/x: access denied (403"),
        f.getMessage());
    assertFalse(f.getMessage().contains("\n"));
  }

  @Tag("s3-credentials") // moto checks no credentials: not run against it
  @Test
  void aWrongSecretKeyIsNamedAsTheSettingToFix() {
    S3Client bad =
        S3Clients.get(
            S3ProxyExtension.settings()
                .withStaticCredentials(S3ProxyExtension.ACCESS_KEY, "wrong"));
    String bucket = S3ProxyExtension.newBucket("wrong-secret");
    RuntimeException e =
        assertThrows(
            RuntimeException.class,
            () -> bad.putObject(b -> b.bucket(bucket).key("x"), RequestBody.fromString("x")));
    assertEquals(
        "storage s3://"
            + bucket
            + "/x: access denied (403 SignatureDoesNotMatch): the secret key does not match"
            + " the access key; check AWS_SECRET_ACCESS_KEY (or aws_secret_access_key of the AWS_PROFILE in use)",
        StorageFailures.nonRetryable("s3://" + bucket + "/x", e).orElseThrow().getMessage());
  }
}
