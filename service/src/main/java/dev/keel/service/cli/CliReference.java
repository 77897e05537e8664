package dev.keel.service.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;

/**
 * Writes {@code docs/cli.md}: the usage help of {@code keel} and of every subcommand, as picocli
 * prints it for {@code keel ... --help}. The docs test regenerates it in memory and compares.
 */
public final class CliReference {
  /** How to regenerate the page, from the repository root. */
  public static final String REGENERATE =
      "./mvnw -q -B -DskipTests package -pl service -am"
          + " && java -cp service/target/keel-service.jar dev.keel.service.cli.CliReference docs/cli.md";

  /** The width the usage help is laid out for, whatever the terminal. */
  static final int WIDTH = 100;

  private CliReference() {}

  /** Writes the page to {@code args[0]} (default {@code docs/cli.md}). */
  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0] : "docs/cli.md");
    Files.writeString(out, markdown(), StandardCharsets.UTF_8);
    System.out.println("wrote " + out);
  }

  /** The whole page. */
  public static String markdown() {
    CommandLine root = new CommandLine(new KeelCli());
    root.setUsageHelpAutoWidth(false);
    root.setUsageHelpWidth(WIDTH);
    List<CommandLine> commands = new ArrayList<>();
    collect(root, commands, new IdentityHashMap<>());

    StringBuilder md = new StringBuilder();
    md.append("# CLI reference\n\n")
        .append(
            "[Keel](../README.md) › CLI reference · previous: [Configuration](configuration.md)"
                + " · next: [REST API](rest.md)\n\n")
        .append(
            "Every `keel` command with its options, as `keel COMMAND --help` prints them. What the"
                + " commands are for, with\nexamples: [Getting started](getting-started.md#the-keel-command)."
                + " Exit codes: 0 success, 1 a run that failed\nor a Temporal that could not be reached,"
                + " 2 bad input.\n\n")
        .append(
            "This page is generated from the picocli definitions; do not edit it by hand."
                + " Regenerate it with:\n\n")
        .append("```bash\n")
        .append(REGENERATE.replace(" && ", " \\\n  && "))
        .append("\n```\n\n");
    for (CommandLine c : commands) {
      md.append("- [")
          .append(qualifiedName(c))
          .append("](#")
          .append(anchor(qualifiedName(c)))
          .append("): ")
          .append(firstLine(c))
          .append('\n');
    }
    for (CommandLine c : commands) {
      md.append("\n## ")
          .append(qualifiedName(c))
          .append("\n\n```text\n")
          .append(c.getUsageMessage(Ansi.OFF).stripTrailing())
          .append("\n```\n");
    }
    md.append(
        "\n---\n\n[Keel](../README.md) · previous: [Configuration](configuration.md) · next:"
            + " [REST API](rest.md)\n");
    return md.toString();
  }

  private static void collect(
      CommandLine c, List<CommandLine> out, Map<CommandLine, Boolean> seen) {
    if (seen.put(c, Boolean.TRUE) != null || c.getCommandSpec().usageMessage().hidden()) {
      return;
    }
    out.add(c);
    // aliases map to the same CommandLine; the identity set keeps each once, in declaration order
    for (CommandLine sub : c.getSubcommands().values()) {
      collect(sub, out, seen);
    }
  }

  static String qualifiedName(CommandLine c) {
    return c.getCommandSpec().qualifiedName(" ");
  }

  /** The line the parent's command list shows: the header, else the description's first line. */
  private static String firstLine(CommandLine c) {
    CommandLine.Model.UsageMessageSpec usage = c.getCommandSpec().usageMessage();
    String[] lines = usage.header().length > 0 ? usage.header() : usage.description();
    return lines.length == 0 ? "" : escape(lines[0].replace("%n", " ").strip());
  }

  /** Markdown text that shows {@code text} as it is (outside a code block). */
  private static String escape(String text) {
    StringBuilder out = new StringBuilder();
    for (char ch : text.toCharArray()) {
      switch (ch) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '\\', '*', '_', '|', '[', ']', '`' -> out.append('\\').append(ch);
        default -> out.append(ch);
      }
    }
    return out.toString();
  }

  /** GitHub's anchor of a heading made of plain words and spaces. */
  static String anchor(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
  }
}
