package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.LifecycleRule;
import software.amazon.awssdk.services.s3.model.PublicAccessBlockConfiguration;
import software.amazon.awssdk.services.s3.model.ServerSideEncryptionByDefault;

/**
 * modules/storage applied to moto: what S3 then says about the bucket, a plan without drift, a
 * destroy.
 */
class StorageModuleAppliesAgainstMotoTest {
  @RegisterExtension static final MotoServer moto = new MotoServer();

  @Test
  void bucketIsVersionedEncryptedPrivateAndExpiresOldCheckpointVersions() throws Exception {
    String bucket = "keel-storage-it";
    TofuModule storage =
        TofuModule.copyOf("modules/storage")
            .against(moto)
            .vars(Map.of("bucket_name", bucket, "storage_prefix", "keel", "force_destroy", true));
    storage.init();
    storage.apply();
    assertEquals(
        "s3://keel-storage-it/keel", storage.outputs().path("storage_root").path("value").asText());

    S3Client s3 = moto.s3();
    assertEquals(
        BucketVersioningStatus.ENABLED, s3.getBucketVersioning(b -> b.bucket(bucket)).status());
    ServerSideEncryptionByDefault sse =
        s3.getBucketEncryption(b -> b.bucket(bucket))
            .serverSideEncryptionConfiguration()
            .rules()
            .get(0)
            .applyServerSideEncryptionByDefault();
    assertEquals("AES256", sse.sseAlgorithmAsString());

    PublicAccessBlockConfiguration pab =
        s3.getPublicAccessBlock(b -> b.bucket(bucket)).publicAccessBlockConfiguration();
    assertTrue(
        pab.blockPublicAcls()
            && pab.blockPublicPolicy()
            && pab.ignorePublicAcls()
            && pab.restrictPublicBuckets(),
        () -> "public access not fully blocked: " + pab);

    Map<String, LifecycleRule> rules = new HashMap<>();
    s3.getBucketLifecycleConfiguration(b -> b.bucket(bucket))
        .rules()
        .forEach(r -> rules.put(r.id(), r));
    LifecycleRule checkpoints = rules.get("expire-old-checkpoint-versions");
    assertEquals(
        "keel/checkpoints/",
        checkpoints.filter() != null && checkpoints.filter().prefix() != null
            ? checkpoints.filter().prefix()
            : checkpoints.prefix(),
        () -> "checkpoint rule: " + checkpoints);
    assertEquals(7, checkpoints.noncurrentVersionExpiration().noncurrentDays());
    assertTrue(
        checkpoints.expiration().expiredObjectDeleteMarker(),
        () -> "delete markers kept: " + checkpoints);
    assertEquals(2, checkpoints.abortIncompleteMultipartUpload().daysAfterInitiation());
    assertEquals(
        30, rules.get("expire-old-versions").noncurrentVersionExpiration().noncurrentDays());

    JsonNode policy = TofuModule.JSON.readTree(s3.getBucketPolicy(b -> b.bucket(bucket)).policy());
    JsonNode deny = policy.path("Statement").get(0);
    assertEquals("Deny", deny.path("Effect").asText());
    assertEquals(
        "false",
        deny.path("Condition").path("Bool").path("aws:SecureTransport").asText(),
        policy::toString);

    storage.planShowsNoChanges();
    storage.destroy();
    assertFalse(
        s3.listBuckets().buckets().stream().anyMatch(b -> b.name().equals(bucket)),
        "bucket still there after destroy");
  }
}
