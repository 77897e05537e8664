package dev.keel.service.cli;

import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.service.dev.DevStack;
import dev.keel.service.dev.LocalStacks;
import dev.keel.service.pipeline.DemoRequest;
import dev.keel.service.pipeline.PipelineLauncher;
import dev.keel.service.pipeline.PipelineWatcher;
import dev.keel.service.pipeline.StoryRequests;
import dev.keel.service.pipeline.StoryRun;
import dev.keel.storage.StorageRoot;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Run the Fashion-MNIST pipeline end to end (ETL -> train -> infer) and print the test accuracy.",
      "",
      "With --story, the data-versioning story in two pipelines. First, table version v0 holds only 50 of the "
          + "6,000 training sneakers (the test split whole) and a model trains on it. Then version v1 holds the "
          + "whole class and the same pipeline, with only the data changed, warm-starts from the champion (the first "
          + "model). Prints the accuracy per class before and after, and the versions and models involved.",
      "",
      "Uses a running `keel dev` on 127.0.0.1:7233 if there is one (and its storage root), else starts the stack in "
          + "this process. With --temporal HOST:PORT (or $TEMPORAL_ADDRESS) it only starts the run there, for the "
          + "workers of that cluster, unless --local-workers is given."
    })
final class DemoCommand implements Callable<Integer> {
  @Mixin StackOptions.Demo stack;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      defaultValue = DemoRequest.DEFAULT_DATA,
      description = "Directory with the Fashion-MNIST IDX files (default: ${DEFAULT-VALUE}).")
  Path data;

  @Option(
      names = "--batches",
      paramLabel = "N",
      description =
          "Train for N batches instead of the demo's length (with --story: per run, default 300).")
  Long batches;

  @Option(
      names = "--story",
      description =
          "Run the data-versioning story (two pipelines on table fashion_mnist_story) "
              + "and print the per-class accuracy before and after.")
  boolean story;

  @Option(
      names = "--local-workers",
      description =
          "With --temporal HOST:PORT: also run every worker in this process "
              + "(on the storage root of --storage); they then share the cluster's task queues with its workers.")
  boolean withLocalWorkers;

  @Option(
      names = "--train-threads",
      defaultValue = "2",
      description = "Intra-op training threads (default: ${DEFAULT-VALUE}).")
  int trainThreads;

  @Override
  public Integer call() throws Exception {
    DemoRequest.requireDataset(data);
    PipelineRequest request =
        story
            ? (batches == null
                    ? StoryRequests.fewOfOneClass(data)
                    : StoryRequests.fewOfOneClass(data, batches))
                .toBuilder().setModelName(StoryRequests.modelName(Instant.now())).build()
            : batches == null ? DemoRequest.load(data) : DemoRequest.load(data, batches);
    long started = System.nanoTime();
    String address = stack.temporalAddressOrNull();
    DevStack devStack = null;
    StorageRoot root;
    if (address == null && listening("127.0.0.1", 7233)) {
      address = "127.0.0.1:7233";
      Optional<LocalStacks.Stack> running = LocalStacks.on(7233);
      root =
          running
              .map(s -> LocalStacks.rootForAttaching(s, stack.namedStorageRoot()))
              .orElseGet(stack::writableStorageRoot);
      System.out.println(
          "Using the Keel dev stack already running on "
              + address
              + running.map(s -> ": " + s.describe()).orElse(""));
    } else if (address != null && !withLocalWorkers) {
      root = stack.writableStorageRoot();
      System.out.println(
          "Temporal: "
              + address
              + " (no local workers: the run needs "
              + PipelineLauncher.expectedWorkers(request)
              + " there, started with --storage "
              + root
              + "; --local-workers runs them in this process)");
    } else {
      root = stack.writableStorageRoot();
      devStack =
          DevStack.start(
              new DevStack.Config(stack.backend(), address, 7233, 8233, root, -1, trainThreads),
              System.out);
      address = devStack.address();
    }
    try (TemporalConnection temporal =
        devStack != null
            ? TemporalConnection.borrowing(devStack.workers().stubs())
            : stack.open(address)) {
      WorkflowServiceStubs stubs = temporal.stubs();
      WorkflowClient client = temporal.client(Optional.ofNullable(root));
      if (story) {
        new StoryRun(client, stubs, System.out).run(request, started);
        return 0;
      }
      String id = PipelineLauncher.start(client, request);
      System.out.println("Started pipeline " + id);
      PipelineResult r =
          new PipelineWatcher(client, stubs, System.out, Duration.ofMillis(500)).follow(id);
      System.out.print(
          System.lineSeparator() + PipelineWatcher.done(request, r, System.nanoTime() - started));
      return 0;
    } finally {
      if (devStack != null) {
        devStack.close();
      }
    }
  }

  private static boolean listening(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 300);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
