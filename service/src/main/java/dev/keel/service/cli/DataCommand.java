package dev.keel.service.cli;

import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.DataHistory;
import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.fashionmnist.TintedFashionMnist;
import dev.keel.etl.history.DataTableHistory;
import dev.keel.etl.history.DataTableList;
import dev.keel.service.data.DataTableListing;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "data",
    mixinStandardHelpOptions = true,
    description = "Data tables written by the ETL stage.",
    subcommands = {
      DataCommand.ListTables.class,
      DataCommand.Describe.class,
      DataCommand.TintedFashion.class
    })
final class DataCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "The data tables under <storage>/tables/ with their latest version (no Temporal needed).")
  static final class ListTables implements Callable<Integer> {
    @Mixin StackOptions.StorageOnly stack;

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

    @Option(names = "--json", description = "Print JSON, as GET /api/v1/data returns it.")
    boolean json;

    @Override
    public Integer call() {
      DataTableList.Page page = DataTableList.page(stack.storageRoot(), offset, limit);
      System.out.print(json ? DataTableListing.json(page) + "\n" : DataTableListing.table(page));
      return 0;
    }
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description = {
        "Every version of a data table: its source, skipped records and rows per split and per class.",
        "For each version: time, operation (append|overwrite), source format, URI and checksum, skipped records, rows"
            + " per split and per class."
      })
  static final class Describe implements Callable<Integer> {
    @Mixin StackOptions.StorageOnly stack;

    @Parameters(
        paramLabel = "TABLE",
        description = "A table name (under <storage>/tables/) or a table URI.")
    String table;

    @Option(names = "--json", description = "Print the history as JSON.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      // reading needs no Temporal: the history is in the table's own Delta log and data
      DataHistory h = DataTableHistory.describe(stack.storageRoot().table(table));
      System.out.print(
          json
              ? JsonFormat.printer().preservingProtoFieldNames().print(h) + "\n"
              : DataTableHistory.render(h));
      return 0;
    }
  }

  @Command(
      name = "tinted-fashion",
      mixinStandardHelpOptions = true,
      description = {
        "Writes a folder of colour images made from Fashion-MNIST, tinted by class, without downloading.",
        "Each image is resized and tinted with its class's hue, moved by a random amount (the same each run).",
        "The layout is <dir>/{train,test}/<class>/<row>.png, for a source {format: image_folder, image_mode: rgb}."
      })
  static final class TintedFashion implements Callable<Integer> {
    @Option(names = "--to", required = true, paramLabel = "DIR", description = "Where to write.")
    java.nio.file.Path to;

    @Option(
        names = "--size",
        defaultValue = "32",
        description = "Side of the square images, 8..512 (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(
        names = "--per-class",
        defaultValue = "0",
        paramLabel = "N",
        description =
            "The first N images of each class in each split; 0 for all 70,000 (default: ${DEFAULT-VALUE}).")
    int perClass;

    @Option(
        names = "--fashion-mnist",
        paramLabel = "DIR",
        defaultValue = IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR,
        description = "The Fashion-MNIST IDX files (default: ${DEFAULT-VALUE}).")
    java.nio.file.Path fashionMnist;

    @Override
    public Integer call() throws java.io.IOException {
      long t0 = System.nanoTime();
      TintedFashionMnist.Written w = TintedFashionMnist.write(fashionMnist, to, size, perClass);
      System.out.printf(
          "wrote %d train and %d test %dx%d colour images to %s in %.1f s%n",
          w.train(), w.test(), size, size, to, (System.nanoTime() - t0) / 1e9);
      return 0;
    }
  }
}
