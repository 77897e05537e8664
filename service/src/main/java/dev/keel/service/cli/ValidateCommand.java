package dev.keel.service.cli;

import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.pipeline.PipelineLauncher;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "validate", mixinStandardHelpOptions = true,
    description = "Check an experiment config (or, with --pipeline, a pipeline request and that its data source exists); lists every problem with its field path.")
final class ValidateCommand implements Callable<Integer> {
  @Parameters(paramLabel = "FILE", description = ".yaml or .json")
  Path file;

  @Option(names = "--pipeline", description = "The file is a pipeline request, not an experiment config.")
  boolean pipeline;

  @Override
  public Integer call() {
    if (pipeline) {
      PipelineLauncher.checkSource(ExperimentConfigLoaders.pipelineLoader().fromFile(file), file.toString());
    } else {
      ExperimentConfigLoaders.experimentLoader().fromFile(file);
    }
    System.out.println(file + ": ok");
    return 0;
  }
}
