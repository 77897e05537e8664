package dev.keel.service.realtemporal;

import static org.junit.jupiter.api.Assertions.fail;

import dev.keel.service.cli.KeelCli;
import dev.keel.service.schedule.PipelineSchedules;
import dev.keel.service.worker.KeelWorkerHost;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One {@code keel dev --temporal cli} shared by the integration tests (started on first use,
 * stopped when the test JVM exits), plus helpers to run the {@code temporal} CLI as a user would.
 */
final class RealTemporal {
  private static KeelDevProcess stack;
  private static WorkflowServiceStubs stubs;

  private RealTemporal() {}

  static Path home() {
    return Path.of(System.getProperty("keel.home", "..")).toAbsolutePath().normalize();
  }

  static Path jar() {
    return Path.of(System.getProperty("keel.jar", "target/keel-service.jar")).toAbsolutePath();
  }

  static Path itDir() {
    return Path.of(System.getProperty("keel.it.dir", "target/it")).toAbsolutePath();
  }

  static Path temporalBinary() {
    return home().resolve(".tools/temporal");
  }

  static synchronized KeelDevProcess stack() {
    if (stack == null) {
      Path storage = itDir().resolve("storage-" + UUID.randomUUID());
      stack =
          new KeelDevProcess(
              storage, KeelDevProcess.freePort(), KeelDevProcess.freePort(), itDir());
      stack.start();
      Runtime.getRuntime().addShutdownHook(new Thread(stack::stop, "stop-keel-dev"));
    }
    return stack;
  }

  static synchronized WorkflowServiceStubs stubs() {
    if (stubs == null) {
      stubs = KeelWorkerHost.connect(stack().address());
    }
    return stubs;
  }

  static WorkflowClient client() {
    return KeelWorkerHost.client(stubs(), "default");
  }

  /** {@code keel ARGS --temporal <stack>}, in this JVM; its exit code. */
  static int keel(String... args) {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--temporal";
    all[args.length + 1] = stack().address();
    return KeelCli.run(all);
  }

  static PipelineSchedules schedules() {
    return new PipelineSchedules(stubs(), "default");
  }

  /** Terminates the schedule's runs still going (a test's clean-up after deleting the schedule). */
  static void terminateScheduledRuns(String scheduleId) {
    for (WorkflowExecutionInfo w :
        list("TemporalScheduledById = '" + scheduleId + "' AND ExecutionStatus = 'Running'")) {
      try {
        client().newUntypedWorkflowStub(w.getExecution().getWorkflowId()).terminate("test cleanup");
      } catch (RuntimeException alreadyClosed) {
        // a short run may finish between the query and the terminate
      }
    }
  }

  /** The output and exit code of one {@code temporal} CLI call. */
  record CliResult(int exitCode, String output) {}

  /**
   * Runs {@code temporal ARGS --address <stack>} (no shell: the arguments are what a user would
   * quote).
   */
  static CliResult temporal(Duration timeout, String... args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(temporalBinary().toString());
    cmd.addAll(List.of(args));
    cmd.add("--address");
    cmd.add(stack().address());
    Path out = Files.createTempFile(itDir(), "temporal-cli-", ".out");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail(
          "temporal "
              + String.join(" ", args)
              + " did not finish in "
              + timeout.toSeconds()
              + " s:\n"
              + Files.readString(out, StandardCharsets.UTF_8));
    }
    return new CliResult(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }

  /**
   * ListWorkflowExecutions with a visibility query (visibility is eventually consistent: polls).
   */
  static List<WorkflowExecutionInfo> listUntilFound(String query, int atLeast, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<WorkflowExecutionInfo> found = List.of();
    while (System.nanoTime() < deadline) {
      found = list(query);
      if (found.size() >= atLeast) {
        return found;
      }
      KeelDevProcess.sleep(300);
    }
    return found;
  }

  static List<WorkflowExecutionInfo> list(String query) {
    return stubs()
        .blockingStub()
        .listWorkflowExecutions(
            ListWorkflowExecutionsRequest.newBuilder()
                .setNamespace("default")
                .setQuery(query)
                .build())
        .getExecutionsList();
  }

  static void await(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out after " + timeout.toSeconds() + " s waiting for " + what);
      }
      KeelDevProcess.sleep(250);
    }
  }

  static String demoJson(String name, long batches) {
    return "{\"name\":\""
        + name
        + "\",\"source\":{\"format\":\"fashion_mnist\",\"uri\":\"/usr/share/datasets/fashion-mnist\"},"
        + "\"target_table\":\"fashion_mnist\",\"experiment\":{\"hyperparameters\":{\"lr\":{\"type\":\"const\",\"val\":0.002},"
        + "\"batch_size\":{\"type\":\"const\",\"val\":128}},\"searcher\":{\"name\":\"single\",\"metric\":\"validation_accuracy\","
        + "\"max_length\":{\"batches\":"
        + batches
        + "}},\"reproducibility\":{\"seed\":42}}}";
  }

  static void writeArtifact(String name, String text) {
    try {
      Files.createDirectories(itDir());
      Files.writeString(itDir().resolve(name), text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
