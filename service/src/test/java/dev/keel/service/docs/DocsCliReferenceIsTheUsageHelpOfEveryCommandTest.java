package dev.keel.service.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.keel.service.cli.CliReference;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/cli.md is exactly what {@link CliReference} generates from the picocli definitions: the
 * usage help of {@code keel} and of every subcommand. A changed option, description or command
 * makes it stale; the failure says how to regenerate it.
 */
class DocsCliReferenceIsTheUsageHelpOfEveryCommandTest {

  @Test
  void theCommittedPageEqualsTheGeneratedOne() throws IOException {
    Path page = Docs.page("docs/cli.md");
    String expected = CliReference.markdown();
    String actual = Files.exists(page) ? Files.readString(page) : "";
    if (!expected.equals(actual)) {
      fail(
          "docs/cli.md is not the usage help of today's commands"
              + firstDifference(expected, actual)
              + ". Regenerate it from the repository root:\n  "
              + CliReference.REGENERATE);
    }
  }

  @Test
  void thePageHasASectionForEveryCommandAndSubcommand() {
    String md = CliReference.markdown();
    for (String command :
        List.of(
            "keel",
            "keel dev",
            "keel demo",
            "keel experiment create",
            "keel experiment kill-trial",
            "keel pool start",
            "keel token create",
            "keel schedule create",
            "keel help")) {
      assertTrue(md.contains("\n## " + command + "\n"), "no section for " + command);
    }
    assertTrue(md.contains("Usage: keel experiment create"), md);
    assertTrue(md.contains(CliReference.REGENERATE.split(" && ")[1]), "the page names its command");
  }

  private static String firstDifference(String expected, String actual) {
    List<String> e = expected.lines().toList();
    List<String> a = actual.lines().toList();
    for (int i = 0; i < Math.max(e.size(), a.size()); i++) {
      String el = i < e.size() ? e.get(i) : "<end of page>";
      String al = i < a.size() ? a.get(i) : "<end of page>";
      if (!el.equals(al)) {
        return " (line " + (i + 1) + ": expected \"" + el + "\", found \"" + al + "\")";
      }
    }
    return " (line endings or a trailing newline differ)";
  }
}
