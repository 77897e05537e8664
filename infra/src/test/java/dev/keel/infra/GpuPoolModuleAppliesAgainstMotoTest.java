package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.autoscaling.model.AutoScalingGroup;
import software.amazon.awssdk.services.autoscaling.model.InstancesDistribution;
import software.amazon.awssdk.services.autoscaling.model.LaunchTemplateOverrides;
import software.amazon.awssdk.services.autoscaling.model.TagDescription;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.LaunchTemplateBlockDeviceMapping;
import software.amazon.awssdk.services.ec2.model.LaunchTemplateInstanceMetadataOptions;
import software.amazon.awssdk.services.ec2.model.ResponseLaunchTemplateData;
import software.amazon.awssdk.services.ec2.model.SecurityGroup;
import software.amazon.awssdk.services.ec2.model.Tag;

/**
 * modules/gpu-pool applied to moto, then read back with the AWS SDK: the launch template (IMDSv2
 * only, user data that starts {@code keel worker --roles TRAIN --pool gpu --slots 4}), the Auto
 * Scaling group (sizes, instance-type fallbacks, pool tags propagated to the instances moto
 * launches), and the two ways the count changes: SetDesiredCapacity, which a later plan leaves
 * alone, and {@code tofu apply -var desired_capacity=N} when terraform owns the count.
 */
class GpuPoolModuleAppliesAgainstMotoTest {
  @RegisterExtension static final MotoServer moto = new MotoServer();

  @BeforeAll
  static void instanceProfile() {
    moto.instanceProfile("keel-pool-worker");
  }

  @Test
  void launchTemplateAndGroupCarryTheWorkerAndAPlanLeavesTheApiSetCountAlone() {
    TofuModule pool =
        TofuModule.copyOf("modules/gpu-pool")
            .against(moto)
            .vars(
                Pools.vars(
                    moto,
                    "temporal.internal:7233",
                    Map.of(
                        "instance_types",
                        Pools.list("g5.12xlarge", "g6.12xlarge"),
                        "min_instances",
                        1,
                        "max_instances",
                        3,
                        "largest_gang_slots",
                        8)));
    pool.init();
    pool.apply();

    AutoScalingClient autoscaling = moto.autoscaling();
    AutoScalingGroup group = group(autoscaling, "keel-gpu");
    assertEquals(
        List.of(1, 3, 1),
        List.of(group.minSize(), group.maxSize(), group.desiredCapacity()),
        "min, max, desired");
    assertEquals(
        List.of("g5.12xlarge", "g6.12xlarge"),
        group.mixedInstancesPolicy().launchTemplate().overrides().stream()
            .map(LaunchTemplateOverrides::instanceType)
            .toList(),
        "instance-type fallbacks in order");
    InstancesDistribution distribution = group.mixedInstancesPolicy().instancesDistribution();
    assertEquals(100, distribution.onDemandPercentageAboveBaseCapacity(), "on demand by default");
    assertEquals("prioritized", distribution.onDemandAllocationStrategy());
    Set<String> tags =
        new TreeSet<>(
            group.tags().stream()
                .filter(TagDescription::propagateAtLaunch)
                .map(t -> t.key() + "=" + t.value())
                .toList());
    assertTrue(
        tags.containsAll(
            Set.of(
                "keel:pool=gpu",
                "keel:roles=TRAIN",
                "keel:slots-per-instance=4",
                "keel:largest-gang-slots=8")),
        () -> "propagated tags: " + tags);

    Ec2Client ec2 = moto.ec2();
    List<String> instanceIds = group.instances().stream().map(i -> i.instanceId()).toList();
    assertEquals(1, instanceIds.size(), "moto launched min_instances");
    List<Tag> instanceTags =
        ec2.describeInstances(r -> r.instanceIds(instanceIds))
            .reservations()
            .get(0)
            .instances()
            .get(0)
            .tags();
    assertTrue(
        instanceTags.contains(Tag.builder().key("keel:pool").value("gpu").build()),
        () -> "instance tags: " + instanceTags);

    String templateId =
        group
            .mixedInstancesPolicy()
            .launchTemplate()
            .launchTemplateSpecification()
            .launchTemplateId();
    ResponseLaunchTemplateData data =
        ec2.describeLaunchTemplateVersions(r -> r.launchTemplateId(templateId))
            .launchTemplateVersions()
            .get(0)
            .launchTemplateData();
    LaunchTemplateInstanceMetadataOptions imds = data.metadataOptions();
    assertEquals(
        List.of("required", "enabled", "1"),
        List.of(
            imds.httpTokensAsString(),
            imds.httpEndpointAsString(),
            String.valueOf(imds.httpPutResponseHopLimit())),
        "IMDSv2 only, one hop");
    assertEquals("keel-pool-worker", data.iamInstanceProfile().name());
    LaunchTemplateBlockDeviceMapping root = data.blockDeviceMappings().get(0);
    assertTrue(
        root.ebs().encrypted()
            && root.ebs().volumeTypeAsString().equals("gp3")
            && root.ebs().volumeSize() == 200,
        () -> "root volume: " + root);
    String userData =
        new String(Base64.getDecoder().decode(data.userData()), StandardCharsets.UTF_8);
    for (String line :
        List.of(
            "ExecStart=/usr/local/bin/keel worker --roles TRAIN --pool gpu --slots 4",
            "TEMPORAL_ADDRESS=temporal.internal:7233",
            "KEEL_STORAGE=" + Pools.STORAGE_ROOT,
            "aws --region \"$region\" s3 cp '" + Pools.JAR + "' /opt/keel/keel-service.jar",
            "systemctl enable --now keel-worker.service")) {
      assertTrue(userData.contains(line), () -> "user data lacks `" + line + "`:\n" + userData);
    }

    SecurityGroup sg =
        ec2.describeSecurityGroups(r -> r.groupIds(data.securityGroupIds()))
            .securityGroups()
            .get(0);
    // ingress: only the pool's own instances (gang ranks), nothing from any CIDR
    assertEquals(
        List.of("tcp 1024-65535 from " + sg.groupId()),
        sg.ipPermissions().stream()
            .map(
                p ->
                    p.ipProtocol()
                        + " "
                        + p.fromPort()
                        + "-"
                        + p.toPort()
                        + " from "
                        + String.join(
                            ",", p.userIdGroupPairs().stream().map(g -> g.groupId()).toList())
                        + String.join(",", p.ipRanges().stream().map(r -> r.cidrIp()).toList()))
            .toList(),
        () -> "ingress: " + sg.ipPermissions());
    assertEquals(
        Set.of(80, 443, 1024, 7233),
        new TreeSet<>(sg.ipPermissionsEgress().stream().map(p -> p.fromPort()).toList()),
        () -> "egress: " + sg.ipPermissionsEgress());

    pool.planShowsNoChanges();
    // the provisioner's fast path: the Auto Scaling API; terraform does not own the count, so no
    // fight
    autoscaling.setDesiredCapacity(r -> r.autoScalingGroupName("keel-gpu").desiredCapacity(3));
    pool.planShowsNoChanges();
    assertEquals(3, group(autoscaling, "keel-gpu").desiredCapacity());

    pool.destroy();
    assertTrue(
        autoscaling
            .describeAutoScalingGroups(r -> r.autoScalingGroupNames("keel-gpu"))
            .autoScalingGroups()
            .isEmpty(),
        "group still there after destroy");
  }

  @Test
  void tofuApplyOfDesiredCapacitySetsTheGroupWhenTerraformOwnsIt() {
    TofuModule pool =
        TofuModule.copyOf("modules/gpu-pool")
            .against(moto)
            .vars(
                Pools.vars(
                    moto,
                    "temporal.internal:7233",
                    Map.of(
                        "pool",
                        "gpu-tofu",
                        "max_instances",
                        4,
                        "terraform_owns_desired_capacity",
                        true,
                        "desired_capacity",
                        1)));
    pool.init();
    pool.apply();
    assertEquals(1, group(moto.autoscaling(), "keel-gpu-tofu").desiredCapacity());
    pool.planShowsNoChanges();

    // the provisioner's tofu path
    pool.apply("-var", "desired_capacity=3");
    assertEquals(3, group(moto.autoscaling(), "keel-gpu-tofu").desiredCapacity());
    // Not re-planned here: moto 5.2.5's UpdateAutoScalingGroup drops a mixed instances policy the
    // request
    // does not repeat (AWS keeps it), so the next plan would show moto's loss, not the module's
    // drift.
    pool.destroy("-var", "desired_capacity=3");
  }

  static AutoScalingGroup group(AutoScalingClient autoscaling, String name) {
    List<AutoScalingGroup> groups =
        autoscaling
            .describeAutoScalingGroups(r -> r.autoScalingGroupNames(name))
            .autoScalingGroups();
    assertFalse(groups.isEmpty(), "no Auto Scaling group " + name);
    return groups.get(0);
  }
}
