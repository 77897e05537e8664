package dev.keel.service.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Just enough of GitHub-flavoured Markdown for the docs tests: fenced code blocks (with the HTML
 * comment right before each), ATX headings and their anchors, table rows and inline links, all
 * outside code.
 */
final class Markdown {
  /** A fenced code block; {@code comment} is the HTML comment right above it, or empty. */
  record Block(String info, List<String> lines, int line, String comment) {}

  /** A heading; {@code line} counts from 1. */
  record Heading(int level, String text, int line) {}

  /** An inline link or image target, as written. */
  record Link(String target, int line) {}

  private static final Pattern FENCE = Pattern.compile("^\\s*(`{3,}|~{3,})\\s*([^`\\s]*).*$");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern COMMENT = Pattern.compile("^\\s*<!--(.*?)-->\\s*$");
  private static final Pattern LINK = Pattern.compile("!?\\[([^\\]]*)]\\(\\s*<?([^)\\s>]+)>?");

  final Path file;
  final List<String> lines;
  private final boolean[] code;
  private final List<Block> blocks = new ArrayList<>();

  Markdown(Path file, String text) {
    this.file = file;
    this.lines = text.lines().toList();
    this.code = new boolean[lines.size()];
    String fence = null;
    String info = null;
    String comment = "";
    int start = 0;
    List<String> body = null;
    String lastComment = "";
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      Matcher f = FENCE.matcher(line);
      if (fence == null) {
        if (f.matches()) {
          fence = f.group(1);
          info = f.group(2).toLowerCase(Locale.ROOT);
          comment = lastComment;
          start = i + 1;
          body = new ArrayList<>();
          code[i] = true;
          continue;
        }
        Matcher c = COMMENT.matcher(line);
        if (c.matches()) {
          lastComment = c.group(1).strip();
        } else if (!line.isBlank()) {
          lastComment = "";
        }
      } else {
        code[i] = true;
        if (f.matches()
            && f.group(2).isEmpty()
            && f.group(1).charAt(0) == fence.charAt(0)
            && f.group(1).length() >= fence.length()) {
          blocks.add(new Block(info, List.copyOf(body), start, comment));
          fence = null;
          lastComment = "";
        } else {
          body.add(line);
        }
      }
    }
    if (fence != null) {
      throw new IllegalStateException(file + ":" + start + ": code block never closed");
    }
  }

  static Markdown read(Path file) {
    try {
      return new Markdown(file, Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** README.md and every page under docs/, in path order. */
  static List<Path> pages() {
    Path root = Docs.root();
    List<Path> out = new ArrayList<>();
    out.add(root.resolve("README.md"));
    try (Stream<Path> s = Files.walk(root.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  List<Block> blocks() {
    return blocks;
  }

  boolean inCode(int index) {
    return code[index];
  }

  List<Heading> headings() {
    List<Heading> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher h = HEADING.matcher(lines.get(i));
      if (!code[i] && h.matches()) {
        out.add(new Heading(h.group(1).length(), h.group(2), i + 1));
      }
    }
    return out;
  }

  /** The anchors GitHub gives the headings: {@code #the-keel-command}, duplicates numbered. */
  Set<String> anchors() {
    Set<String> out = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (Heading h : headings()) {
      String slug = slug(h.text());
      int n = seen.merge(slug, 1, Integer::sum) - 1;
      out.add(n == 0 ? slug : slug + "-" + n);
    }
    return out;
  }

  /** GitHub's slug of a heading: its text lower-cased, punctuation dropped, spaces to '-'. */
  static String slug(String heading) {
    String text =
        heading
            .replaceAll("!?\\[([^\\]]*)]\\([^)]*\\)", "$1") // a link: its text
            .replace("`", "")
            .replace("*", "");
    return text.toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "")
        .replace(' ', '-');
  }

  /** Inline links outside code blocks and code spans. */
  List<Link> links() {
    List<Link> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (code[i]) {
        continue;
      }
      Matcher m = LINK.matcher(withoutCodeSpans(lines.get(i)));
      while (m.find()) {
        out.add(new Link(m.group(2), i + 1));
      }
    }
    return out;
  }

  /** The line with its code spans blanked out. */
  static String withoutCodeSpans(String line) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < line.length()) {
      if (line.charAt(i) != '`') {
        out.append(line.charAt(i++));
        continue;
      }
      int n = run(line, i);
      int close = closing(line, i + n, n);
      if (close < 0) {
        out.append(line, i, i + n);
        i += n;
      } else {
        out.append(" ".repeat(close + n - i));
        i = close + n;
      }
    }
    return out.toString();
  }

  /** A table row's cells, split at the pipes outside code spans; null if the line is no row. */
  static List<String> cells(String line) {
    String t = line.strip();
    if (!t.startsWith("|")) {
      return null;
    }
    List<String> out = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    int i = 1;
    while (i < t.length()) {
      char ch = t.charAt(i);
      if (ch == '\\' && i + 1 < t.length() && t.charAt(i + 1) == '|') {
        cell.append('|');
        i += 2;
      } else if (ch == '`') {
        int n = run(t, i);
        int close = closing(t, i + n, n);
        int end = close < 0 ? i + n : close + n;
        cell.append(t, i, end);
        i = end;
      } else if (ch == '|') {
        out.add(cell.toString().strip());
        cell.setLength(0);
        i++;
      } else {
        cell.append(ch);
        i++;
      }
    }
    if (!cell.toString().isBlank()) {
      out.add(cell.toString().strip());
    }
    return out;
  }

  /** The text of a cell that is exactly one code span, else null. */
  static String codeSpan(String cell) {
    if (cell == null || !cell.startsWith("`")) {
      return null;
    }
    int n = run(cell, 0);
    int close = closing(cell, n, n);
    if (close < 0 || close + n != cell.length()) {
      return null;
    }
    return cell.substring(n, close).strip();
  }

  private static int run(String s, int from) {
    int n = 0;
    while (from + n < s.length() && s.charAt(from + n) == '`') {
      n++;
    }
    return n;
  }

  private static int closing(String s, int from, int n) {
    int i = from;
    while (i < s.length()) {
      if (s.charAt(i) == '`') {
        int m = run(s, i);
        if (m == n) {
          return i;
        }
        i += m;
      } else {
        i++;
      }
    }
    return -1;
  }
}
