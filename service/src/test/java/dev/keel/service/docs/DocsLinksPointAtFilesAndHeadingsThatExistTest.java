package dev.keel.service.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/ points at a file or folder of the repository, and a
 * link with {@code #anchor} into a Markdown page at one of that page's headings (GitHub's anchors).
 * Web links ({@code https:}, {@code mailto:}) are not followed.
 */
class DocsLinksPointAtFilesAndHeadingsThatExistTest {

  @Test
  void everyRelativeLinkResolves() {
    List<String> problems = new ArrayList<>();
    int links = 0;
    Map<Path, Set<String>> anchors = new HashMap<>();
    for (Path page : Markdown.pages()) {
      Markdown md = Markdown.read(page);
      links += md.links().size();
      problems.addAll(problems(md, anchors));
    }
    assertEquals(List.of(), problems, String.join("\n", problems));
    assertTrue(links >= 100, "only " + links + " links found");
  }

  @Test
  void aMissingFileAndAMissingHeadingAreReported() {
    String sample =
        String.join(
            "\n",
            "# A page",
            "",
            "## The `keel` command",
            "",
            "See [here](#the-keel-command), [there](#no-such-heading),",
            "[the architecture](docs/architecture.md#modules), [gone](docs/no-such-page.md)",
            "and [a heading that moved](docs/architecture.md#no-such-section), `[not a](link.md)`.",
            "");
    Markdown md = new Markdown(Docs.page("sample.md"), sample);
    List<String> problems = problems(md, new HashMap<>());
    assertEquals(3, problems.size(), String.join("\n", problems));
    assertTrue(problems.get(0).contains("#no-such-heading"), problems.get(0));
    assertTrue(problems.get(1).contains("no-such-page.md"), problems.get(1));
    assertTrue(problems.get(2).contains("#no-such-section"), problems.get(2));
  }

  static List<String> problems(Markdown md, Map<Path, Set<String>> anchors) {
    List<String> problems = new ArrayList<>();
    Path dir = md.file.getParent();
    for (Markdown.Link link : md.links()) {
      String target = link.target();
      if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
        continue; // https:, mailto:, ...
      }
      String where = md.file.getFileName() + ":" + link.line() + ": (" + target + ")";
      int hash = target.indexOf('#');
      String file = hash < 0 ? target : target.substring(0, hash);
      String anchor = hash < 0 ? null : target.substring(hash + 1);
      Path resolved =
          file.isEmpty()
              ? md.file
              : dir.resolve(URLDecoder.decode(file, StandardCharsets.UTF_8)).normalize();
      if (!file.isEmpty() && !Files.exists(resolved)) {
        problems.add(where + ": no such file " + Docs.root().relativize(resolved));
        continue;
      }
      if (anchor != null && resolved.toString().endsWith(".md")) {
        Set<String> known =
            resolved.equals(md.file)
                ? md.anchors()
                : anchors.computeIfAbsent(resolved, p -> Markdown.read(p).anchors());
        if (!known.contains(anchor)) {
          problems.add(where + ": no heading with the anchor #" + anchor + " there");
        }
      }
    }
    return problems;
  }
}
