package dev.keel.service.cli;

import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.DataHistory;
import dev.keel.etl.history.DataTableHistory;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "data", mixinStandardHelpOptions = true, description = "Data tables written by the ETL stage.",
    subcommands = {DataCommand.Describe.class})
final class DataCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  @Command(name = "describe", mixinStandardHelpOptions = true,
      description = "Every version of a table: time, operation (append|overwrite), source and its checksum, "
          + "skipped records, rows per split and per class.")
  static final class Describe implements Callable<Integer> {
    @Mixin StackOptions stack;

    @Parameters(paramLabel = "TABLE", description = "A table name (under <storage>/tables/) or a table URI.")
    String table;

    @Option(names = "--json", description = "Print the history as JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      // reading needs no Temporal: the history is in the table's own Delta log and data
      DataHistory h = DataTableHistory.describe(stack.storageRoot().table(table));
      System.out.print(json ? JsonFormat.printer().preservingProtoFieldNames().print(h) + "\n" : DataTableHistory.render(h));
      return 0;
    }
  }
}
