package dev.keel.service.cli;

import dev.keel.tables.audit.AuditTable;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "audit",
    mixinStandardHelpOptions = true,
    description =
        "Who did what through the API: the storage root's audit table, oldest first (no Temporal needed).")
final class AuditCommand implements Callable<Integer> {
  @Mixin StackOptions.StorageOnly stack;

  @Option(
      names = "--target",
      paramLabel = "ID",
      description = "Only entries about this experiment, pipeline or model version (NAME/VERSION).")
  String target;

  @Override
  public Integer call() {
    List<AuditTable.Entry> entries =
        new AuditTable(stack.storageRoot()).read(Optional.ofNullable(target));
    int who = Math.max(3, entries.stream().mapToInt(e -> e.who().length()).max().orElse(0));
    int action = Math.max(6, entries.stream().mapToInt(e -> e.action().length()).max().orElse(0));
    String row = "%-24s  %-" + who + "s  %-6s  %-" + action + "s  %6s  %s%n";
    System.out.printf(Locale.ROOT, row, "TIME", "WHO", "ROLE", "ACTION", "STATUS", "TARGET");
    for (AuditTable.Entry e : entries) {
      System.out.printf(
          Locale.ROOT,
          row,
          e.time(),
          e.who(),
          e.role(),
          e.action(),
          e.status(),
          e.target() == null ? "" : e.target());
    }
    return 0;
  }
}
