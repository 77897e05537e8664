package dev.keel.service.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code keel} command line. */
@Command(
    name = "keel",
    mixinStandardHelpOptions = true,
    version = "keel 0.1.0",
    description =
        "Durable deep-learning pipelines on Temporal: ETL -> training -> batch inference.",
    subcommands = {
      DevCommand.class,
      DemoCommand.class,
      SubmitCommand.class,
      StatusCommand.class,
      ExperimentCommand.class,
      TrialCommand.class,
      CheckpointCommand.class,
      PipelineCommand.class,
      ModelCommand.class,
      DataCommand.class,
      ScheduleCommand.class,
      PoolCommand.class,
      ValidateCommand.class,
      WorkerCommand.class,
      ServeCommand.class,
      TokenCommand.class,
      AuditCommand.class,
      CommandLine.HelpCommand.class
    })
public final class KeelCli implements Runnable {

  /**
   * The logback configuration {@code KEEL_LOG_FORMAT=json} selects: one JSON object per log line.
   */
  static final String JSON_LOG_CONFIG = "keel/logback-json.xml";

  public static void main(String[] args) {
    // before the first logger exists, which reads the configuration
    if ("json".equalsIgnoreCase(System.getenv("KEEL_LOG_FORMAT"))
        && System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", JSON_LOG_CONFIG);
    }
    System.exit(run(args));
  }

  public static int run(String... args) {
    // stderr's own encoding, which is the platform's on Java 17
    return run(
        new PrintWriter(new OutputStreamWriter(System.err, Charset.defaultCharset()), true), args);
  }

  /** Runs one command; errors go to {@code err} as one clear message. */
  public static int run(PrintWriter err, String... args) {
    FriendlyErrors errors = new FriendlyErrors();
    return new CommandLine(new KeelCli())
        .setErr(err)
        .setExecutionExceptionHandler(errors)
        .setParameterExceptionHandler(errors)
        .execute(args);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }
}
