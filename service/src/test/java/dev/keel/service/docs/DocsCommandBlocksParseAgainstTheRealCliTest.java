package dev.keel.service.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.cli.KeelCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * Every {@code keel} / {@code ./keel} command line in a fenced block of README.md and docs/ parses
 * with the real {@code keel} command line (so a removed option or subcommand fails here). The ones
 * that need no server ({@code --help}, {@code validate}, {@code experiment preview}) also run, and
 * must exit 0. A block whose commands need a running Keel, Temporal or cloud is marked with {@code
 * <!-- illustrative: why -->} right above it; its commands are parsed, not run.
 *
 * <p>docs/cli.md is left out: it is picocli's own usage text, pinned by {@link
 * DocsCliReferenceIsTheUsageHelpOfEveryCommandTest}.
 */
class DocsCommandBlocksParseAgainstTheRealCliTest {
  private static final Pattern ASSIGNMENT = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*=\\S*\\s+");

  /** Commands that read only files, so a test can run them. */
  private static final Set<String> RUNNABLE = Set.of("keel validate", "keel experiment preview");

  /** What the scan found. */
  record Scan(List<String> problems, int parsed, int ran) {}

  @Test
  void everyKeelCommandInTheDocsParsesAndTheOfflineOnesRun() {
    List<String> problems = new ArrayList<>();
    int parsed = 0;
    int ran = 0;
    for (Path page : Markdown.pages()) {
      if (page.equals(Docs.page("docs/cli.md"))) {
        continue;
      }
      Scan scan = scan(Markdown.read(page));
      problems.addAll(scan.problems());
      parsed += scan.parsed();
      ran += scan.ran();
    }
    assertEquals(List.of(), problems, String.join("\n", problems));
    // the scan itself works: the pages hold many commands, several of them runnable here
    assertTrue(parsed >= 40, "only " + parsed + " keel commands found in the docs");
    assertTrue(ran >= 4, "only " + ran + " keel commands ran");
  }

  @Test
  void aRemovedOptionAnUnknownSubcommandAndAnUnmarkedServerCommandAreReported() {
    String page =
        String.join(
            "\n",
            "```bash",
            "./keel demo --no-such-option",
            "keel frobnicate",
            "$ KEEL_DEBUG=1 keel submit my.yaml --wait   # needs a stack",
            "keel validate no/such/file.yaml",
            "```",
            "",
            "<!-- illustrative: needs a running Keel -->",
            "```bash",
            "./keel submit my.yaml --wait",
            "./keel status ID --jsn",
            "```",
            "");
    Scan scan = scan(new Markdown(Path.of("sample.md"), page));
    List<String> p = scan.problems();
    assertEquals(5, p.size(), String.join("\n", p));
    assertTrue(p.get(0).contains("sample.md:2") && p.get(0).contains("--no-such-option"), p.get(0));
    assertTrue(p.get(1).contains("frobnicate"), p.get(1));
    assertTrue(p.get(2).contains("illustrative"), p.get(2));
    assertTrue(p.get(3).contains("exited 2"), p.get(3));
    assertTrue(p.get(4).contains("--jsn"), p.get(4));
  }

  static Scan scan(Markdown md) {
    List<String> problems = new ArrayList<>();
    int parsed = 0;
    int ran = 0;
    for (Markdown.Block block : md.blocks()) {
      boolean illustrative = block.comment().startsWith("illustrative");
      List<String> lines = block.lines();
      for (int i = 0; i < lines.size(); i++) {
        int lineNo = block.line() + i + 1;
        StringBuilder joined = new StringBuilder(lines.get(i));
        while (joined.toString().stripTrailing().endsWith("\\") && i + 1 < lines.size()) {
          String s = joined.toString().stripTrailing();
          joined.setLength(0);
          joined.append(s, 0, s.length() - 1).append(' ').append(lines.get(++i).strip());
        }
        List<String> args = command(joined.toString());
        if (args == null) {
          continue;
        }
        String where =
            md.file.getFileName() + ":" + lineNo + ": `" + joined.toString().strip() + "`";
        ParseResult result;
        try {
          result = new CommandLine(new KeelCli()).parseArgs(args.toArray(String[]::new));
          parsed++;
        } catch (CommandLine.ParameterException e) {
          problems.add(where + ": " + e.getMessage());
          continue;
        }
        boolean runnable = runnable(result);
        if (runnable && !illustrative) {
          String failure = run(args);
          ran++;
          if (failure != null) {
            problems.add(where + ": " + failure);
          }
        } else if (!runnable && !illustrative) {
          problems.add(
              where
                  + ": this command cannot run in a test without a server; mark its block with"
                  + " <!-- illustrative: why --> on the line above");
        }
      }
    }
    return new Scan(problems, parsed, ran);
  }

  /** The arguments of a keel command line, or null when the line is not one. */
  static List<String> command(String line) {
    String s = line.strip();
    if (s.startsWith("$ ")) {
      s = s.substring(2).strip();
    }
    while (ASSIGNMENT.matcher(s).find()) {
      s = ASSIGNMENT.matcher(s).replaceFirst("");
    }
    List<String> words = words(s);
    if (words.isEmpty() || !(words.get(0).equals("keel") || words.get(0).equals("./keel"))) {
      return null;
    }
    return words.subList(1, words.size());
  }

  /** Shell words up to a comment, pipe, redirection, '&' or ';'. */
  static List<String> words(String s) {
    List<String> out = new ArrayList<>();
    StringBuilder word = null;
    int i = 0;
    while (i < s.length()) {
      char ch = s.charAt(i);
      if (Character.isWhitespace(ch)) {
        if (word != null) {
          out.add(word.toString());
          word = null;
        }
        i++;
      } else if (word == null && ch == '#') {
        break;
      } else if (ch == '|' || ch == '&' || ch == ';' || ch == '>' || ch == '<') {
        break;
      } else if (ch == '\'' || ch == '"') {
        int close = s.indexOf(ch, i + 1);
        if (close < 0) {
          close = s.length();
        }
        word = word == null ? new StringBuilder() : word;
        word.append(s, i + 1, close);
        i = close + 1;
      } else if (ch == '\\' && i + 1 < s.length()) {
        word = word == null ? new StringBuilder() : word;
        word.append(s.charAt(i + 1));
        i += 2;
      } else {
        word = word == null ? new StringBuilder() : word;
        word.append(ch);
        i++;
      }
    }
    if (word != null) {
      out.add(word.toString());
    }
    return out;
  }

  /** Help, or a command that reads only files. */
  private static boolean runnable(ParseResult result) {
    ParseResult leaf = result;
    while (true) {
      if (leaf.isUsageHelpRequested() || leaf.isVersionHelpRequested()) {
        return true;
      }
      if (!leaf.hasSubcommand()) {
        break;
      }
      leaf = leaf.subcommand();
    }
    String name = leaf.commandSpec().qualifiedName(" ");
    return RUNNABLE.contains(name) || name.equals("keel") || name.equals("keel help");
  }

  /** Runs the command in-process; null when it exits 0, else what went wrong. */
  private static String run(List<String> args) {
    List<String> resolved = new ArrayList<>();
    for (String a : args) {
      Path inRepo = Docs.root().resolve(a);
      resolved.add(!a.startsWith("-") && Files.exists(inRepo) ? inRepo.toString() : a);
    }
    PrintStream out = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    int exit;
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      exit = KeelCli.run(new PrintWriter(err, true), resolved.toArray(String[]::new));
    } finally {
      System.setOut(out);
    }
    if (exit == 0) {
      return null;
    }
    return "exited "
        + exit
        + ": "
        + (err + captured.toString(StandardCharsets.UTF_8)).strip().replace('\n', ' ');
  }
}
