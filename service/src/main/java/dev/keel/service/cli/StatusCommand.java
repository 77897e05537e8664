package dev.keel.service.cli;

import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.service.pipeline.PipelineLauncher;
import dev.keel.service.pipeline.PipelineStatusText;
import io.temporal.client.WorkflowNotFoundException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Print a pipeline's stage and results; a failed run's error, its type and the stage it failed in.")
final class StatusCommand implements Callable<Integer> {
  @Mixin StackOptions.TemporalOnly stack;

  @Parameters(paramLabel = "PIPELINE_ID")
  String id;

  @Option(
      names = "--json",
      description = "Print the pipeline's progress as JSON (the PipelineProgress message).")
  boolean json;

  @Override
  public Integer call() throws Exception {
    try (TemporalConnection temporal = stack.open()) {
      PipelineProgress progress;
      try {
        progress = PipelineLauncher.progress(temporal.client(), id);
      } catch (WorkflowNotFoundException e) {
        throw new IllegalArgumentException(
            "no pipeline "
                + id
                + " on Temporal "
                + stack.clientAddress()
                + " (keel pipeline list shows those it knows)",
            e);
      }
      System.out.print(
          json
              ? JsonFormat.printer().preservingProtoFieldNames().print(progress) + "\n"
              : PipelineStatusText.render(id, progress));
      return 0;
    }
  }
}
