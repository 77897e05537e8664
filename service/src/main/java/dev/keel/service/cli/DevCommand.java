package dev.keel.service.cli;

import dev.keel.service.dev.DevStack;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "dev",
    mixinStandardHelpOptions = true,
    description = {
      "Run the whole stack on this machine until Ctrl-C: Temporal, every worker and the REST API.",
      "Temporal listens on 127.0.0.1:7233: the Temporal CLI's durable dev server (web UI on 127.0.0.1:8233) when a"
          + " temporal binary is found, else Temporal's in-memory Java test server; with $TEMPORAL_ADDRESS or"
          + " --temporal HOST:PORT, a cluster's instead. The REST API and the dashboard listen on 127.0.0.1:8080."
    })
final class DevCommand implements Callable<Integer> {
  @Mixin StackOptions.Dev stack;

  @Option(
      names = "--port",
      defaultValue = "7233",
      description = "Port of the embedded Temporal server (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--ui-port",
      defaultValue = "8233",
      description = "Web UI port of the CLI dev server on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
  int uiPort;

  @Option(
      names = "--api-port",
      defaultValue = "8080",
      description = "REST API port on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
  int apiPort;

  @Option(
      names = "--train-threads",
      defaultValue = "1",
      description = "Intra-op threads per training slot (default: ${DEFAULT-VALUE}).")
  int trainThreads;

  @Option(
      names = "--data-root",
      paramLabel = "DIR|s3://BUCKET/PREFIX",
      description =
          "A place the API's requests may read sources from or write tables to, besides the storage root and"
              + " the demo's data directory (repeatable).")
  List<String> dataRoots = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    DevStack devStack =
        DevStack.start(
            new DevStack.Config(
                stack.backend(),
                stack.temporalAddressOrNull(),
                port,
                uiPort,
                stack.writableStorageRoot(),
                apiPort,
                trainThreads,
                dataRoots),
            System.out);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  devStack.close();
                  stopped.countDown();
                },
                "keel-dev-shutdown"));
    System.out.println("keel dev is up; Ctrl-C stops it.");
    System.out.flush();
    stopped.await();
    return 0;
  }
}
