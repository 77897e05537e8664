package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.iam.model.AttachedPolicy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketLocationConstraint;

/**
 * envs/aws-example initialised with its s3 backend on moto (partial configuration through
 * -backend-config, S3-native locking), applied, re-planned and destroyed: the state lives in the
 * state bucket, and the deployment is the storage bucket, two roles and the two pools.
 */
class ExampleRootAppliesAgainstMotoWithRemoteStateTest {
  @RegisterExtension static final MotoServer moto = new MotoServer();

  @Test
  void theDeploymentAppliesWithRemoteStateReplansCleanAndDestroys() throws Exception {
    S3Client s3 = moto.s3();
    s3.createBucket(
        b ->
            b.bucket("keel-tofu-state")
                .createBucketConfiguration(
                    c -> c.locationConstraint(BucketLocationConstraint.EU_WEST_1)));
    String ami = moto.someAmiId();
    Map<String, Object> vars =
        new HashMap<>(
            Map.of(
                "region",
                MotoServer.REGION,
                "bucket_name",
                "keel-example-data",
                "force_destroy_bucket",
                true,
                "temporal_address",
                "172.31.40.10:7233",
                "subnet_ids",
                moto.defaultSubnetIds(),
                "gpu_ami_id",
                ami,
                "cpu_ami_id",
                ami));
    TofuModule example =
        TofuModule.copyOf("envs/aws-example")
            .against(moto)
            .vars(vars)
            .write(
                "moto.s3.tfbackend",
                moto.s3BackendConfig("keel-tofu-state", "keel/aws-example.tfstate"));
    example.init("-backend-config=moto.s3.tfbackend");
    example.apply();

    JsonNode state =
        TofuModule.JSON.readTree(
            s3.getObjectAsBytes(b -> b.bucket("keel-tofu-state").key("keel/aws-example.tfstate"))
                .asUtf8String());
    assertTrue(
        state.path("resources").size() >= 15,
        () -> "remote state holds " + state.path("resources").size() + " resources");
    JsonNode out = example.outputs();
    assertEquals("s3://keel-example-data/keel", out.path("storage_root").path("value").asText());
    assertEquals(
        "keel worker --roles TRAIN --pool gpu --slots 1",
        out.path("worker_commands").path("value").path("gpu").asText());
    assertEquals(
        2,
        moto.autoscaling()
            .describeAutoScalingGroups(r -> r.autoScalingGroupNames("keel-gpu", "keel-cpu"))
            .autoScalingGroups()
            .size());
    assertEquals(
        List.of("keel-control-worker-provisioner", "keel-control-worker-storage"),
        moto
            .iam()
            .listAttachedRolePolicies(r -> r.roleName("keel-control-worker"))
            .attachedPolicies()
            .stream()
            .map(AttachedPolicy::policyName)
            .sorted()
            .toList());
    assertEquals(
        List.of("keel-gpu-worker-storage"),
        moto
            .iam()
            .listAttachedRolePolicies(r -> r.roleName("keel-gpu-worker"))
            .attachedPolicies()
            .stream()
            .map(AttachedPolicy::policyName)
            .toList(),
        "GPU workers may not scale pools");
    // no lock left behind
    assertEquals(
        List.of("keel/aws-example.tfstate"),
        s3.listObjectsV2(b -> b.bucket("keel-tofu-state")).contents().stream()
            .map(o -> o.key())
            .toList());

    example.planShowsNoChanges();
    example.destroy();
    JsonNode after =
        TofuModule.JSON.readTree(
            s3.getObjectAsBytes(b -> b.bucket("keel-tofu-state").key("keel/aws-example.tfstate"))
                .asUtf8String());
    assertEquals(0, after.path("resources").size(), after::toString);
  }
}
