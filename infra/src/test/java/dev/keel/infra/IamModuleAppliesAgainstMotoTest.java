package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.iam.model.AttachedPolicy;
import software.amazon.awssdk.services.iam.model.NoSuchEntityException;

/**
 * modules/iam applied to moto: the role, its instance profile and its two separate policies as IAM
 * returns them.
 */
class IamModuleAppliesAgainstMotoTest {
  @RegisterExtension static final MotoServer moto = new MotoServer();

  @Test
  void workersGetTheStorageRootAndTheControlRoleAlsoTheProvisionerPolicy() throws Exception {
    TofuModule iam =
        TofuModule.copyOf("modules/iam")
            .against(moto)
            .vars(
                Map.of(
                    "name",
                    "keel-control-worker",
                    "bucket_arn",
                    "arn:aws:s3:::keel-data",
                    "storage_prefix",
                    "keel",
                    "provisioner",
                    true,
                    "autoscaling_group_prefix",
                    "keel-"));
    iam.init();
    iam.apply();

    IamClient client = moto.iam();
    JsonNode trust =
        TofuModule.JSON.readTree(
            decode(
                client
                    .getRole(r -> r.roleName("keel-control-worker"))
                    .role()
                    .assumeRolePolicyDocument()));
    assertEquals(
        "ec2.amazonaws.com",
        trust.path("Statement").get(0).path("Principal").path("Service").asText(),
        trust::toString);
    assertEquals(
        List.of("keel-control-worker"),
        client
            .getInstanceProfile(p -> p.instanceProfileName("keel-control-worker"))
            .instanceProfile()
            .roles()
            .stream()
            .map(r -> r.roleName())
            .toList());

    List<AttachedPolicy> attached =
        client.listAttachedRolePolicies(r -> r.roleName("keel-control-worker")).attachedPolicies();
    Set<String> names = new TreeSet<>(attached.stream().map(AttachedPolicy::policyName).toList());
    assertEquals(Set.of("keel-control-worker-provisioner", "keel-control-worker-storage"), names);

    JsonNode storage = document(client, attached, "keel-control-worker-storage");
    assertEquals(
        "arn:aws:s3:::keel-data/keel/*",
        statement(storage, "ReadWriteStorageRoot").path("Resource").asText());
    assertEquals(
        "keel/*",
        statement(storage, "ListStorageRoot")
            .path("Condition")
            .path("StringLike")
            .path("s3:prefix")
            .get(1)
            .asText());
    JsonNode scale =
        statement(document(client, attached, "keel-control-worker-provisioner"), "ScaleKeelPools");
    List<String> actions = new ArrayList<>();
    scale.path("Action").forEach(a -> actions.add(a.asText()));
    assertTrue(
        actions.containsAll(
            List.of("autoscaling:SetDesiredCapacity", "autoscaling:SetInstanceProtection")),
        actions::toString);
    assertTrue(
        scale.path("Resource").asText().endsWith(":autoScalingGroupName/keel-*"), scale::toString);

    iam.planShowsNoChanges();

    // the GPU workers' role: the same module without the provisioner policy
    iam.vars(
        Map.of(
            "name",
            "keel-control-worker",
            "bucket_arn",
            "arn:aws:s3:::keel-data",
            "provisioner",
            false));
    iam.apply();
    assertEquals(
        List.of("keel-control-worker-storage"),
        client
            .listAttachedRolePolicies(r -> r.roleName("keel-control-worker"))
            .attachedPolicies()
            .stream()
            .map(AttachedPolicy::policyName)
            .toList());

    iam.destroy();
    try {
      client.getRole(r -> r.roleName("keel-control-worker"));
      throw new AssertionError("role still there after destroy");
    } catch (NoSuchEntityException expected) {
      // gone
    }
  }

  private static JsonNode document(IamClient client, List<AttachedPolicy> attached, String name)
      throws Exception {
    String arn =
        attached.stream()
            .filter(p -> p.policyName().equals(name))
            .findFirst()
            .orElseThrow()
            .policyArn();
    String version = client.getPolicy(p -> p.policyArn(arn)).policy().defaultVersionId();
    return TofuModule.JSON.readTree(
        decode(
            client
                .getPolicyVersion(v -> v.policyArn(arn).versionId(version))
                .policyVersion()
                .document()));
  }

  private static JsonNode statement(JsonNode policy, String sid) {
    for (JsonNode s : policy.path("Statement")) {
      if (s.path("Sid").asText().equals(sid)) {
        return s;
      }
    }
    throw new AssertionError("no statement " + sid + " in " + policy);
  }

  /** IAM returns policy documents URL-encoded. */
  private static String decode(String document) {
    return document.startsWith("{")
        ? document
        : URLDecoder.decode(document, StandardCharsets.UTF_8);
  }
}
