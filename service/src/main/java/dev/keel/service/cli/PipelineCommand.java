package dev.keel.service.cli;

import dev.keel.service.pipeline.PipelineList;
import io.temporal.client.WorkflowClient;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "pipeline",
    mixinStandardHelpOptions = true,
    description = "Pipelines: list (start one with keel submit, watch one with keel status).",
    subcommands = {PipelineCommand.ListPipelines.class})
final class PipelineCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "The pipelines Temporal knows (within its retention), newest first, with their stage.")
  static final class ListPipelines extends ExperimentCommand.Controlling {
    @Option(
        names = "--status",
        paramLabel = "STATUS",
        description = "Only running, completed, failed, canceled, terminated or timed_out.")
    String status;

    @Option(
        names = "--offset",
        defaultValue = "0",
        description = "Skip this many (default: ${DEFAULT-VALUE}).")
    int offset;

    @Option(
        names = "--limit",
        defaultValue = "50",
        description = "At most this many, 1..1000 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "Print JSON, as GET /api/v1/pipelines returns it.")
    boolean json;

    @Override
    int run(WorkflowClient client) {
      PipelineList.Page page =
          PipelineList.page(client, Optional.ofNullable(status), offset, limit);
      System.out.print(json ? PipelineList.json(page) + "\n" : PipelineList.table(page));
      return 0;
    }
  }
}
