package dev.keel.service.cli;

import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PipelineResult;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.pipeline.PipelineLauncher;
import dev.keel.service.pipeline.PipelineWatcher;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.registry.ModelRegistryTable;
import io.temporal.client.WorkflowClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "submit",
    mixinStandardHelpOptions = true,
    description =
        "Validate a pipeline request (YAML or JSON) and start it on a running Keel (keel dev, or $TEMPORAL_ADDRESS).")
final class SubmitCommand implements Callable<Integer> {
  @Mixin StackOptions.Starting stack;

  @Parameters(paramLabel = "FILE", description = "Pipeline request, .yaml or .json.")
  Path file;

  @Option(names = "--wait", description = "Follow progress and print the result.")
  boolean await;

  @Override
  public Integer call() throws Exception {
    PipelineRequest request = ExperimentConfigLoaders.pipelineLoader().fromFile(file);
    PipelineLauncher.checkSource(
        request, file.toString()); // before connecting: a wrong path needs no cluster
    if (stack.storage != null) {
      // only a root the user named: ./keel-data need not be the root of the stack that runs it
      PipelineLauncher.checkWarmStart(
          request, new ModelRegistryTable(stack.storageRoot()), file.toString());
    }
    String address = stack.clientAddress();
    try (TemporalConnection temporal = stack.open(address)) {
      // a root the user named travels with the run; unnamed, the run uses the workers' own
      Optional<StorageRoot> root = stack.namedStorageRoot();
      WorkflowClient client = temporal.client(root);
      String id =
          PipelineLauncher.start(
              client, request.toBuilder().setSubmittedBy(CliUser.name()).build());
      System.out.println(id);
      System.err.println(
          "keel: started on "
              + address
              + "; it runs on that cluster's "
              + PipelineLauncher.expectedWorkers(request)
              + root.map(r -> ", which must serve storage " + r)
                  .orElse(" (on their storage root)"));
      ExperimentLauncher.warnings(client, request.getExperiment())
          .forEach(w -> System.err.println("keel: warning: " + w));
      if (await) {
        long started = System.nanoTime();
        PipelineResult r =
            new PipelineWatcher(client, temporal.stubs(), System.out, Duration.ofSeconds(1))
                .follow(id);
        System.out.print(
            System.lineSeparator() + PipelineWatcher.done(request, r, System.nanoTime() - started));
      }
      return 0;
    }
  }
}
