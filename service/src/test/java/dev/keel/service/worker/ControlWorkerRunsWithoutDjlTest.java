package dev.keel.service.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.worker.ControlWorkerServesCatalogAndCheckpointGcTest.Probe;
import dev.keel.service.worker.ControlWorkerServesCatalogAndCheckpointGcTest.ProbeImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code keel worker --roles CONTROL} runs with no DJL jar on its classpath: the control worker
 * (every workflow, the catalog and checkpoint-GC activities) needs storage and tables only, and
 * ActivityWiring builds the training and inference implementations only for the roles that use
 * them. The worker is a child JVM whose classpath is this test's minus every {@code ai/djl} jar;
 * the catalog and GC activities a probe workflow calls can only run there.
 */
class ControlWorkerRunsWithoutDjlTest {
  private static LoopbackTemporalServer server;
  private static WorkflowServiceStubs stubs;
  private static WorkerFactory probes;
  private static Process worker;
  private static Path storage;
  private static Path log;

  @BeforeAll
  static void startServerAndControlWorker() throws Exception {
    storage =
        Files.createDirectories(Path.of(System.getProperty("keel.test.tmp", "target/test-tmp")))
            .resolve("control-without-djl-" + UUID.randomUUID());
    Files.createDirectories(storage);
    server = LoopbackTemporalServer.start(0);

    List<String> classpath =
        Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
    List<String> withoutDjl =
        classpath.stream()
            .filter(entry -> !entry.replace(File.separatorChar, '/').contains("/ai/djl/"))
            .collect(Collectors.toList());
    assertTrue(
        withoutDjl.size() < classpath.size(),
        "the test classpath has DJL jars to leave out: " + classpath);

    log = storage.resolve("control-worker.log");
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                String.join(File.pathSeparator, withoutDjl),
                "dev.keel.service.cli.KeelCli",
                "worker",
                "--roles",
                "CONTROL",
                "--dev-server",
                "--temporal",
                server.address(),
                "--storage",
                storage.toString()));
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("KEEL_LOG_LEVEL", "INFO");
    worker = pb.start();

    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
    probes = WorkerFactory.newInstance(KeelWorkerHost.client(stubs, "default"));
    probes.newWorker("no-djl-probe").registerWorkflowImplementationTypes(ProbeImpl.class);
    probes.start();
  }

  @AfterAll
  static void stopAll() throws Exception {
    if (probes != null) {
      probes.shutdownNow();
    }
    if (worker != null) {
      worker.destroy();
      if (!worker.waitFor(20, TimeUnit.SECONDS)) {
        worker.destroyForcibly();
      }
    }
    if (stubs != null) {
      stubs.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void catalogAndGcActivitiesRunOnAControlWorkerWithoutDjl() throws Exception {
    Path checkpoint = Files.createDirectories(storage.resolve("checkpoints/probe/trial-1/c"));
    Files.writeString(checkpoint.resolve("MANIFEST"), "12345");
    Files.writeString(checkpoint.resolve("parameters.djl"), "1234567890");

    WorkflowClient client = KeelWorkerHost.client(stubs, "default");
    Probe probe =
        client.newWorkflowStub(
            Probe.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue("no-djl-probe")
                .setWorkflowId("no-djl-probe-" + UUID.randomUUID())
                .setWorkflowExecutionTimeout(Duration.ofMinutes(3))
                .build());
    CompletableFuture<String> run =
        WorkflowClient.execute(probe::run, checkpoint.toUri().toString());

    String result = null;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (result == null) {
      try {
        result = run.get(1, TimeUnit.SECONDS);
      } catch (TimeoutException notYet) {
        if (!worker.isAlive()) {
          fail("the control worker exited with " + worker.exitValue() + ":\n" + workerLog());
        }
        if (System.nanoTime() > deadline) {
          fail("no result in 3 minutes; control worker log:\n" + workerLog());
        }
      }
    }

    String[] lines = result.split("\n");
    assertEquals(
        "table "
            + storage.resolve("tables/fashion").toUri()
            + " does not exist — run the ETL stage first",
        lines[0],
        workerLog());
    assertEquals("false true", lines[1], "the repeated catalog batch wrote nothing");
    assertEquals("15", lines[2], "bytes freed");
    assertFalse(Files.exists(checkpoint));
    assertTrue(Files.isDirectory(storage.resolve("_keel/metrics/_delta_log")));
    assertTrue(worker.isAlive(), workerLog());
    String output = workerLog();
    assertFalse(
        output.contains("NoClassDefFoundError") || output.contains("ClassNotFoundException"),
        output);
  }

  private static String workerLog() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (Exception e) {
      return "(no log: " + e + ")";
    }
  }
}
