package dev.keel.service.cli;

import dev.keel.api.config.RequestKind;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.experiment.ExperimentLauncher;
import dev.keel.service.pipeline.PipelineLauncher;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "validate",
    mixinStandardHelpOptions = true,
    description = {
      "Check an experiment config or a pipeline request; lists every problem with its field path.",
      "A pipeline request (recognised by its top-level fields, or said with --pipeline) also has its data source"
          + " checked: that it exists and, for a local CSV or Parquet file, has the label column."
    })
final class ValidateCommand implements Callable<Integer> {
  @Parameters(paramLabel = "FILE", description = ".yaml or .json")
  Path file;

  @Option(
      names = "--pipeline",
      description =
          "The file is a pipeline request, not an experiment config (found"
              + " anyway when it has fields only pipeline requests have, such as source or experiment).")
  boolean pipeline;

  @Override
  public Integer call() {
    List<String> pipelineFields = pipeline ? List.of() : RequestKind.pipelineOnlyFields(file);
    if (!pipelineFields.isEmpty()) {
      System.err.println(
          file
              + ": a pipeline request (it has "
              + String.join(", ", pipelineFields)
              + "), checked as one");
    }
    if (pipeline || !pipelineFields.isEmpty()) {
      PipelineLauncher.checkSource(
          ExperimentConfigLoaders.pipelineLoader().fromFile(file), file.toString());
    } else {
      ExperimentLauncher.check(
          ExperimentConfigLoaders.experimentLoader().fromFile(file), file.toString());
    }
    System.out.println(file + ": ok");
    return 0;
  }
}
