package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketLocationConstraint;
import software.amazon.awssdk.services.sts.model.Credentials;

/**
 * S3 bucket names are global, so a taken name can only be found at apply time (a plan cannot see
 * another account's buckets): the apply fails with S3's own error, and the bucket already there is
 * neither adopted into the state nor changed.
 */
class StorageModuleRefusesABucketNameThatIsTakenTest {
  @RegisterExtension static final MotoServer moto = new MotoServer();

  @Test
  void aBucketOfAnotherAccountFailsTheApplyWithBucketAlreadyExists() {
    String bucket = "keel-taken-elsewhere";
    Credentials other =
        moto.sts()
            .assumeRole(
                r ->
                    r.roleArn("arn:aws:iam::111111111111:role/other-team")
                        .roleSessionName("other-account"))
            .credentials();
    try (S3Client otherS3 =
        S3Client.builder()
            .endpointOverride(moto.endpoint())
            .region(Region.of(MotoServer.REGION))
            .forcePathStyle(true)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsSessionCredentials.create(
                        other.accessKeyId(), other.secretAccessKey(), other.sessionToken())))
            .build()) {
      otherS3.createBucket(
          b ->
              b.bucket(bucket)
                  .createBucketConfiguration(
                      c -> c.locationConstraint(BucketLocationConstraint.EU_WEST_1)));
    }

    Tool.Result apply = applyStorage(bucket);
    assertNotEquals(0, apply.exitCode(), apply::output);
    assertTrue(
        apply.output().contains("BucketAlreadyExists")
            && apply.output().contains("aws_s3_bucket.this"),
        apply::output);
  }

  @Test
  void aBucketThisAccountOwnsFailsTheApplyAndIsNotAdopted() {
    String bucket = "keel-taken-here";
    S3Client s3 = moto.s3();
    s3.createBucket(
        b ->
            b.bucket(bucket)
                .createBucketConfiguration(
                    c -> c.locationConstraint(BucketLocationConstraint.EU_WEST_1)));
    s3.putObject(
        b -> b.bucket(bucket).key("keep-me"),
        RequestBody.fromString("data of whoever made this bucket"));

    TofuModule storage =
        TofuModule.copyOf("modules/storage").against(moto).vars(Map.of("bucket_name", bucket));
    storage.init();
    Tool.Result apply = storage.tryApply();
    assertNotEquals(0, apply.exitCode(), apply::output);
    assertTrue(apply.output().contains("BucketAlreadyOwnedByYou"), apply::output);
    Tool.Result state = storage.tofu().run("state", "list");
    assertEquals("", state.output().strip(), "the existing bucket was adopted into the state");
    assertEquals(
        "data of whoever made this bucket",
        s3.getObjectAsBytes(b -> b.bucket(bucket).key("keep-me")).asUtf8String());
  }

  private static Tool.Result applyStorage(String bucket) {
    TofuModule storage =
        TofuModule.copyOf("modules/storage").against(moto).vars(Map.of("bucket_name", bucket));
    storage.init();
    return storage.tryApply();
  }
}
