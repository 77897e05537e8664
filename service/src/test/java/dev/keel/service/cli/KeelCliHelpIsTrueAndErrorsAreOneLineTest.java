package dev.keel.service.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What {@code keel} says without any stack: every command's summary is a whole sentence, {@code
 * --storage} and {@code --temporal} say what they mean for each command (the storage a submitted
 * run uses, the local backends only where one starts), a usage error prints the usage line and the
 * error, not the whole help page, and a Temporal that cannot be reached is named with how to name
 * another.
 */
class KeelCliHelpIsTrueAndErrorsAreOneLineTest {

  @Test
  void everySummaryIsOneWholeSentence() {
    List<String> cut = new ArrayList<>();
    for (CommandLine command : commands()) {
      String[] description = command.getCommandSpec().usageMessage().description();
      String summary = description.length == 0 ? "" : description[0];
      if (!summary.endsWith(".")
          || summary.length() > 110
          || count(summary, '(') != count(summary, ')')
          || count(summary, '`') % 2 != 0) {
        cut.add(command.getCommandSpec().qualifiedName() + ": '" + summary + "'");
      }
    }
    assertEquals(List.of(), cut, "summaries that are not one sentence of at most 110 characters");
  }

  @Test
  void storageHelpSaysWhichRootTheCommandUses() {
    for (String command : List.of("submit", "experiment create")) {
      String help = option(command, "--storage").description()[0];
      assertFalse(help.contains("./keel-data"), command + ": " + help);
      assertTrue(help.contains("the run uses its workers' own root"), command + ": " + help);
    }
    assertTrue(
        option("demo", "--storage")
            .description()[0]
            .contains("the root of the keel dev running on 127.0.0.1:7233"));
    for (String command :
        List.of(
            "dev",
            "worker",
            "serve",
            "experiment list",
            "experiment describe",
            "model list",
            "data describe")) {
      OptionSpec storage = option(command, "--storage");
      assertFalse(storage.hidden(), command);
      assertTrue(
          storage.description()[0].contains("(default: $KEEL_STORAGE or ./keel-data)"),
          command + ": " + storage.description()[0]);
    }
    // accepted (scripts pass it everywhere) but not offered where nothing reads it
    for (String command :
        List.of("status", "pipeline list", "experiment kill", "schedule list", "pool list")) {
      assertTrue(option(command, "--storage").hidden(), command);
    }
  }

  @Test
  void temporalHelpNamesTheLocalBackendsOnlyWhereOneStarts() {
    for (CommandLine command : commands()) {
      OptionSpec temporal = command.getCommandSpec().findOption("--temporal");
      if (temporal == null || temporal.hidden()) {
        continue;
      }
      String name = command.getCommandSpec().qualifiedName();
      boolean starts = Set.of("keel dev", "keel demo").contains(name);
      assertEquals(starts, String.join(" ", temporal.description()).contains("embedded"), name);
      assertEquals(starts, temporal.paramLabel().contains("cli|embedded"), name);
    }
  }

  @Test
  void aUsageErrorPrintsTheUsageLineAndTheErrorNotTheWholeHelp() {
    KeelRun.Result missing = KeelRun.keel("experiment", "describe");
    assertEquals(2, missing.code());
    assertTrue(missing.err().startsWith("Usage: keel experiment describe "), missing.err());
    assertTrue(
        missing
            .err()
            .endsWith(
                "keel: Missing required parameter: 'EXPERIMENT_ID' (keel experiment describe --help"
                    + " lists every option)\n"),
        missing.err());
    assertFalse(
        missing.err().contains("Print the view JSON"), "no option descriptions: " + missing.err());
    assertTrue(missing.err().lines().count() <= 3, missing.err());

    KeelRun.Result unknown = KeelRun.keel("model", "list", "--stag", "champion");
    assertEquals(2, unknown.code());
    assertTrue(unknown.err().contains("keel: Unknown option: '--stag'"), unknown.err());
    assertFalse(
        unknown.err().contains("Skip this many"), "no option descriptions: " + unknown.err());
  }

  @Test
  void anUnreachableTemporalIsNamedWithHowToNameAnother() throws IOException {
    String address = "127.0.0.1:" + closedPort();
    for (List<String> command :
        List.of(
            List.of("status", "some-pipeline"),
            List.of("experiment", "describe", "some-experiment"),
            List.of("experiment", "wait", "some-experiment"),
            List.of("pipeline", "list"))) {
      List<String> args = new ArrayList<>(command);
      args.addAll(List.of("--temporal", address));
      KeelRun.Result r = KeelRun.keel(args.toArray(String[]::new));
      assertEquals(1, r.code(), command + ": " + r);
      assertEquals(
          "keel: cannot reach Temporal at "
              + address
              + " (connection refused): start one with keel dev, or"
              + " name a Temporal frontend with --temporal HOST:PORT or $TEMPORAL_ADDRESS\n",
          r.err(),
          command.toString());
    }
  }

  /** A loopback port nothing listens on (it was free a moment ago). */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static OptionSpec option(String command, String name) {
    CommandLine c = new CommandLine(new KeelCli());
    for (String part : command.split(" ")) {
      c = c.getSubcommands().get(part);
    }
    OptionSpec o = c.getCommandSpec().findOption(name);
    assertTrue(o != null, command + " has " + name);
    return o;
  }

  /** Every command and subcommand but {@code keel} itself. */
  private static List<CommandLine> commands() {
    List<CommandLine> all = new ArrayList<>();
    collect(new CommandLine(new KeelCli()), all);
    return all.subList(1, all.size());
  }

  private static void collect(CommandLine c, List<CommandLine> into) {
    into.add(c);
    // "help" is picocli's own; an alias would list a command twice
    c.getSubcommands()
        .forEach(
            (name, sub) -> {
              if (name.equals(sub.getCommandName())) {
                collect(sub, into);
              }
            });
  }

  private static long count(String s, char c) {
    return s.chars().filter(x -> x == c).count();
  }
}
