package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.autoscaling.model.AutoScalingGroup;
import software.amazon.awssdk.services.autoscaling.model.LaunchTemplateOverrides;
import software.amazon.awssdk.services.autoscaling.model.TagDescription;

/**
 * modules/cpu-pool applied to moto: control, ETL and inference workers, no training flags, the same
 * group shape.
 */
class CpuPoolModuleAppliesAgainstMotoTest {
  @RegisterExtension static final MotoServer moto = new MotoServer();

  @Test
  void controlEtlAndInferenceWorkersRunWithoutTrainingSlots() {
    moto.instanceProfile("keel-pool-worker");
    TofuModule pool =
        TofuModule.copyOf("modules/cpu-pool")
            .against(moto)
            .vars(Pools.vars(moto, "temporal.internal:7233", Map.of("max_instances", 2)));
    pool.init();
    pool.apply();

    AutoScalingGroup group =
        GpuPoolModuleAppliesAgainstMotoTest.group(moto.autoscaling(), "keel-cpu");
    assertEquals(
        List.of(1, 2, 1),
        List.of(group.minSize(), group.maxSize(), group.desiredCapacity()),
        "min, max, desired");
    assertEquals(
        List.of("m6i.xlarge", "m6a.xlarge", "m5.xlarge"),
        group.mixedInstancesPolicy().launchTemplate().overrides().stream()
            .map(LaunchTemplateOverrides::instanceType)
            .toList());
    assertTrue(
        group.tags().stream()
            .anyMatch(
                t ->
                    t.key().equals("keel:pool")
                        && t.value().equals("cpu")
                        && t.propagateAtLaunch()),
        () -> "tags: " + group.tags().stream().map(TagDescription::key).toList());
    String templateId =
        group
            .mixedInstancesPolicy()
            .launchTemplate()
            .launchTemplateSpecification()
            .launchTemplateId();
    String userData =
        new String(
            Base64.getDecoder()
                .decode(
                    moto.ec2()
                        .describeLaunchTemplateVersions(r -> r.launchTemplateId(templateId))
                        .launchTemplateVersions()
                        .get(0)
                        .launchTemplateData()
                        .userData()),
            StandardCharsets.UTF_8);
    assertTrue(
        userData.contains("ExecStart=/usr/local/bin/keel worker --roles CONTROL,ETL,INFER\n"),
        userData);
    assertFalse(userData.contains("--slots"), userData);

    pool.planShowsNoChanges();
    pool.destroy();
  }
}
