package dev.keel.service.pool;

import static dev.keel.service.cli.KeelRun.keel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.api.v1.AwsAutoScalingGroup;
import dev.keel.service.api.ApiServer;
import dev.keel.service.cli.KeelRun;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.testing.Poll;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provisioner started with {@code keel pool start} on a real control worker (the real demand
 * observer, no experiments, and the real Auto Scaling actuator on a moto group): {@code
 * min_instances} brings the group to 1 instance; {@code keel pool list|describe} (table and {@code
 * --json}) and {@code GET /api/v1/pools[/name]} show it with its last decision; a second start
 * updates the spec; stop ends it; unknown pools exit 2 / 404.
 */
@Tag("pool-moto")
class PoolCommandAndApiShowAProvisionerOnMotoTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void startListDescribeUpdateAndStopAPoolFromTheCliAndTheApi(@TempDir Path dir) throws Exception {
    AwsAutoScalingGroup group = MotoGroups.create("keel-cli-pool", "t3.micro", 3);
    StorageRoot root = StorageRoot.of(TestDirs.create("pool-cli").toString());
    try (LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0);
        KeelWorkerHost workers =
            KeelWorkerHost.start(
                WorkerHostOptions.newBuilder()
                    .setTemporalAddress(temporal.address())
                    .setStorageRoot(root)
                    .optDevServer(true)
                    .optRoles(EnumSet.of(Role.CONTROL))
                    .build());
        ApiServer api = ApiServer.start("127.0.0.1", 0, workers.client(), root)) {
      String address = temporal.address();
      Path spec = Files.writeString(dir.resolve("gpu.yaml"), spec(group, 1));

      KeelRun.Result started = keel("pool", "start", spec.toString(), "--temporal", address);
      assertEquals(0, started.code(), started.toString());
      assertEquals("started the provisioner of pool gpu (workflow pool-gpu)\n", started.out());
      await(() -> desired() == 1);
      await(
          () ->
              keel("pool", "list", "--temporal", address)
                  .out()
                  .lines()
                  .anyMatch(l -> l.matches("gpu\\s+1\\s+1\\s+0\\s+1\\s+.*")));

      KeelRun.Result list = keel("pool", "list", "--temporal", address);
      assertTrue(
          list.out()
              .startsWith(
                  "POOL  DESIRED  RUNNING  BUSY  IDLE  STARTING  FAILED  GANGS  QUEUED  LAST DECISION\n"),
          list.out());
      KeelRun.Result describe = keel("pool", "describe", "gpu", "--temporal", address);
      assertEquals(0, describe.code(), describe.toString());
      String text = describe.out();
      assertTrue(
          text.startsWith(
              "pool gpu (workflow pool-gpu): aws_asg keel-cli-pool (us-east-1) at "
                  + group.getEndpointOverride()
                  + "\n  1 slot per instance, 1..3 instances, max_idle_period 10m, max_starting_period 20m, poll every 2s\n"
                  + "desired 1: 1 running (0 busy, 1 idle), 0 starting, 0 failed, seen "),
          text);
      assertTrue(text.contains("\ndemand: 0 gangs, 0 slots (0 queued)\n"), text);
      assertTrue(
          text.contains("\nlast decision: ")
              && text.contains("No demand, min_instances 1: desired 1 fits"),
          text);
      assertTrue(
          text.contains("\nlast change: ")
              && text.contains("min_instances 1: 1 more instance: desired 0 → 1\n"),
          text);
      assertTrue(text.contains("\nINSTANCE ") && text.contains(" IDLE (InService) "), text);

      JsonNode json =
          JSON.readTree(keel("pool", "describe", "gpu", "--json", "--temporal", address).out());
      assertEquals(1, json.get("desired").asInt());
      assertEquals(1, json.get("running").asInt());
      assertEquals(0, json.get("busy").asInt(), "counts are there when zero");
      assertEquals("IDLE", json.get("instances").get(0).get("phase").asText());
      assertEquals("gpu", json.get("spec").get("name").asText());

      HttpResponse<String> all = get(api, "/api/v1/pools");
      assertEquals(200, all.statusCode());
      assertEquals(
          "gpu", JSON.readTree(all.body()).get("pools").get(0).get("spec").get("name").asText());
      HttpResponse<String> one = get(api, "/api/v1/pools/gpu");
      assertEquals(200, one.statusCode());
      JsonNode status = JSON.readTree(one.body());
      assertEquals(1, status.get("desired").asInt());
      assertTrue(
          status.get("last_change").get("reason").asText().startsWith("min_instances 1: "),
          one.body());
      HttpResponse<String> unknown = get(api, "/api/v1/pools/tpu");
      assertEquals(404, unknown.statusCode());
      assertEquals(
          "no provisioner runs for pool tpu; running: gpu",
          JSON.readTree(unknown.body()).get("message").asText());

      // a running provisioner takes a new spec
      Files.writeString(spec, spec(group, 2));
      KeelRun.Result updated = keel("pool", "start", spec.toString(), "--temporal", address);
      assertEquals(
          "updated the provisioner of pool gpu (workflow pool-gpu)\n",
          updated.out(),
          updated.toString());
      await(() -> desired() == 2);

      KeelRun.Result missing = keel("pool", "describe", "tpu", "--temporal", address);
      assertEquals(2, missing.code());
      assertEquals("keel: no provisioner runs for pool tpu; running: gpu\n", missing.err());

      KeelRun.Result stopped = keel("pool", "stop", "gpu", "--temporal", address);
      assertEquals(0, stopped.code(), stopped.toString());
      await(
          () ->
              keel("pool", "list", "--temporal", address)
                  .out()
                  .equals("no pool provisioner runs (keel pool start SPEC starts one)\n"));
      assertEquals(2, desired(), "stopping leaves the group as it is");
      KeelRun.Result again = keel("pool", "stop", "gpu", "--temporal", address);
      assertEquals(2, again.code());
      assertEquals(
          "keel: no provisioner runs for pool gpu (none runs; keel pool start SPEC starts one)\n",
          again.err());
      assertTrue(
          keel("pool", "describe", "gpu", "--temporal", address)
              .out()
              .startsWith("pool gpu (workflow pool-gpu, stopped)"));
    }
  }

  private static String spec(AwsAutoScalingGroup group, int min) {
    return """
        name: gpu
        slots_per_instance: 1
        min_instances: %d
        max_instances: 3
        max_idle_period: 10m
        poll_interval: 2s
        aws_asg: {auto_scaling_group_name: %s, region: us-east-1, endpoint_override: '%s'}
        """
        .formatted(min, group.getAutoScalingGroupName(), group.getEndpointOverride());
  }

  private static int desired() {
    try {
      return MotoGroups.describe("keel-cli-pool").desiredCapacity();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static HttpResponse<String> get(ApiServer api, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(api.url() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void await(BooleanSupplier done) throws InterruptedException {
    Poll.until("the provisioner", Duration.ofSeconds(60), done);
  }
}
