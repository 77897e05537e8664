package dev.keel.service.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import dev.keel.api.config.ConfigLimits;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.config.EnumNames;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PoolSpec;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.pool.PoolProvisioners;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md cannot drift from the protos and the validators:
 *
 * <ul>
 *   <li>it documents every field of the configs users write — {@code PipelineRequest}, {@code
 *       ExperimentConfig}, {@code PoolSpec} — and no field they do not have. Each section headed
 *       with a message's full name (e.g. {@code (`keel.v1.PipelineRequest`)}) lists the message's
 *       field paths in the first column of its tables; a message type used by two fields or more
 *       (e.g. {@code keel.v1.Length}) has a section of its own, and paths stop at it;
 *   <li>every {@code yaml} example on the page, marked with its kind ({@code <!-- example: pipeline
 *       request -->}, {@code experiment config} or {@code pool spec}), loads through the real
 *       loader and validator without a problem;
 *   <li>its Limits table names every bound of {@link ConfigLimits} with its value.
 * </ul>
 *
 * <p>And every enum field's row names each value the field takes, in backticks (a value the
 * validator refuses for that field, such as a selector's {@code archived}, is left out).
 */
class DocsConfigurationReferenceMatchesTheProtosAndTheValidatorsTest {
  private static final List<Descriptor> ROOTS =
      List.of(
          PipelineRequest.getDescriptor(),
          ExperimentConfig.getDescriptor(),
          PoolSpec.getDescriptor());
  private static final Pattern TYPE = Pattern.compile("`(keel\\.v1\\.\\w+)`");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*)$");
  private static final Pattern EXAMPLE = Pattern.compile("example:\\s*(.+)");
  private static final Pattern CONSTANT = Pattern.compile("[A-Z][A-Z0-9_]+");

  private static Markdown page() {
    return Markdown.read(Docs.page("docs/configuration.md"));
  }

  @Test
  void everyFieldOfTheConfigProtosIsDocumentedAndNothingElse() {
    List<String> problems = fieldProblems(page(), expectedSections());
    assertEquals(List.of(), problems, String.join("\n", problems));
  }

  @Test
  void aMissingAndAnUnknownFieldAreReported() {
    String sample =
        String.join(
            "\n",
            "## Length (`keel.v1.Length`)",
            "",
            "| field | meaning |",
            "|---|---|",
            "| `batches` | |",
            "| `records` | |",
            "| `minutes` | |",
            "");
    Map<String, Set<String>> expected = new TreeMap<>();
    expected.put("keel.v1.Length", new TreeSet<>(Set.of("batches", "records", "epochs")));
    List<String> problems = fieldProblems(new Markdown(Path.of("sample.md"), sample), expected);
    assertEquals(2, problems.size(), String.join("\n", problems));
    assertTrue(problems.get(0).contains("[epochs]"), problems.get(0));
    assertTrue(problems.get(1).contains("[minutes]"), problems.get(1));
  }

  @Test
  void everyYamlExampleLoadsThroughTheRealLoaderAndValidator() {
    List<String> problems = exampleProblems(page());
    assertEquals(List.of(), problems, String.join("\n", problems));
  }

  @Test
  void anInvalidExampleAndAnUnmarkedOneAreReported() {
    String sample =
        String.join(
            "\n",
            "<!-- example: experiment config -->",
            "```yaml",
            "searcher: {name: no_such_searcher}",
            "```",
            "",
            "```yaml",
            "name: x",
            "```",
            "");
    List<String> problems = exampleProblems(new Markdown(Path.of("sample.md"), sample));
    assertEquals(2, problems.size(), String.join("\n", problems));
    assertTrue(problems.get(0).contains("searcher.name"), problems.get(0));
    assertTrue(problems.get(1).contains("<!-- example:"), problems.get(1));
  }

  @Test
  void theLimitsTableNamesEveryBoundOfConfigLimitsWithItsValue() throws IllegalAccessException {
    Map<String, String> expected = new TreeMap<>();
    for (Field f : ConfigLimits.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers())
          && (f.getType() == int.class || f.getType() == long.class)) {
        expected.put(f.getName(), limit(((Number) f.get(null)).longValue()));
      }
    }
    Map<String, String> documented = new TreeMap<>();
    Markdown md = page();
    boolean inLimits = false;
    for (int i = 0; i < md.lines.size(); i++) {
      String line = md.lines.get(i);
      Matcher h = HEADING.matcher(line);
      if (!md.inCode(i) && h.matches()) {
        inLimits = h.group(2).strip().equals("Limits");
        continue;
      }
      List<String> cells = Markdown.cells(line);
      if (!inLimits || md.inCode(i) || cells == null || cells.size() < 3) {
        continue;
      }
      String constant = Markdown.codeSpan(cells.get(2));
      if (constant != null && CONSTANT.matcher(constant).matches()) {
        documented.put(constant, cells.get(1));
      }
    }
    assertTrue(expected.size() >= 8, "ConfigLimits' bounds: " + expected);
    assertEquals(
        expected,
        documented,
        "docs/configuration.md, section Limits: one row per ConfigLimits bound, its value in the"
            + " second column (100,000 or 1 MiB) and the constant's name in the third");
  }

  /** 100,000 or, for a whole number of MiB, 1 MiB. */
  static String limit(long value) {
    if (value >= 1 << 20 && value % (1 << 20) == 0) {
      return (value >> 20) + " MiB";
    }
    return String.format(Locale.ROOT, "%,d", value);
  }

  /** Values the validator refuses for one field although its enum names them. */
  private static final Map<String, List<String>> NARROWED_BY_THE_VALIDATOR =
      Map.of("keel.v1.PipelineRequest warm_start.model.stage", List.of("champion"));

  @Test
  void everyEnumFieldRowNamesEachValueItTakes() {
    Map<String, Map<String, String>> rows = rows(page());
    List<String> problems = new ArrayList<>();
    enumFields()
        .forEach(
            (key, type) -> {
              String[] sectionAndPath = key.split(" ", 2);
              String row =
                  rows.getOrDefault(sectionAndPath[0], Map.of())
                      .getOrDefault(sectionAndPath[1], "");
              List<String> takes =
                  NARROWED_BY_THE_VALIDATOR.getOrDefault(
                      key, List.of(EnumNames.expected(type).split("\\|")));
              List<String> missing =
                  takes.stream().filter(v -> !row.contains("`" + v + "`")).toList();
              if (!missing.isEmpty()) {
                problems.add(key + ": the row does not name " + missing);
              }
            });
    assertTrue(
        enumFields().keySet().containsAll(NARROWED_BY_THE_VALIDATOR.keySet())
            && enumFields().containsKey("keel.v1.PipelineRequest source.format"),
        enumFields().keySet().toString());
    assertEquals(List.of(), problems, String.join("\n", problems));
  }

  /** "section path" of every enum field the sections list, with its enum. */
  private static Map<String, EnumDescriptor> enumFields() {
    Set<Descriptor> sections = new LinkedHashSet<>(ROOTS);
    sections.addAll(sharedTypes());
    Map<String, EnumDescriptor> out = new TreeMap<>();
    for (Descriptor d : sections) {
      enumPaths(d, d.getFullName() + " ", "", sections, out);
    }
    return out;
  }

  private static void enumPaths(
      Descriptor d,
      String section,
      String prefix,
      Set<Descriptor> sections,
      Map<String, EnumDescriptor> out) {
    for (FieldDescriptor f : d.getFields()) {
      String path = prefix + f.getName();
      if (f.getJavaType() == FieldDescriptor.JavaType.ENUM) {
        out.put(section + path, f.getEnumType());
      }
      Descriptor t = messageType(f);
      if (t != null && !sections.contains(t)) {
        enumPaths(t, section, path + (f.isMapField() ? ".<name>." : "."), sections, out);
      }
    }
  }

  /** For each section type, the field paths it must list. */
  static Map<String, Set<String>> expectedSections() {
    Set<Descriptor> sections = new LinkedHashSet<>(ROOTS);
    sections.addAll(sharedTypes());
    Map<String, Set<String>> out = new TreeMap<>();
    for (Descriptor d : sections) {
      Set<String> paths = new TreeSet<>();
      paths(d, "", sections, paths);
      out.put(d.getFullName(), paths);
    }
    return out;
  }

  /** Message types that two fields or more use, among all the types the roots reach. */
  private static Set<Descriptor> sharedTypes() {
    Map<Descriptor, Integer> uses = new LinkedHashMap<>();
    Set<Descriptor> seen = new LinkedHashSet<>();
    List<Descriptor> todo = new ArrayList<>(ROOTS);
    while (!todo.isEmpty()) {
      Descriptor d = todo.remove(0);
      if (!seen.add(d)) {
        continue;
      }
      for (FieldDescriptor f : d.getFields()) {
        Descriptor t = messageType(f);
        if (t != null) {
          uses.merge(t, 1, Integer::sum);
          todo.add(t);
        }
      }
    }
    Set<Descriptor> out = new LinkedHashSet<>();
    uses.forEach(
        (t, n) -> {
          if (n >= 2) {
            out.add(t);
          }
        });
    return out;
  }

  private static void paths(
      Descriptor d, String prefix, Set<Descriptor> sections, Set<String> out) {
    for (FieldDescriptor f : d.getFields()) {
      String path = prefix + f.getName();
      out.add(path);
      Descriptor t = messageType(f);
      if (t != null && !sections.contains(t)) {
        paths(t, path + (f.isMapField() ? ".<name>." : "."), sections, out);
      }
    }
  }

  /** The Keel message a field holds (a map's value), or null for scalars, enums and google.* */
  private static Descriptor messageType(FieldDescriptor f) {
    if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
      return null;
    }
    Descriptor t = f.getMessageType();
    if (f.isMapField()) {
      FieldDescriptor value = t.findFieldByName("value");
      if (value.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        return null;
      }
      t = value.getMessageType();
    }
    return t.getFullName().startsWith("google.protobuf.") ? null : t;
  }

  /** Compares each typed section's first-column paths with the fields of its type. */
  static List<String> fieldProblems(Markdown md, Map<String, Set<String>> expected) {
    Map<String, Set<String>> documented = new TreeMap<>();
    rows(md).forEach((section, rows) -> documented.put(section, new TreeSet<>(rows.keySet())));
    return fieldProblems(md, expected, documented);
  }

  /** Each typed section's rows, by the path in their first column. */
  static Map<String, Map<String, String>> rows(Markdown md) {
    Map<String, Map<String, String>> documented = new TreeMap<>();
    String section = null;
    int level = 0;
    for (int i = 0; i < md.lines.size(); i++) {
      if (md.inCode(i)) {
        continue;
      }
      String line = md.lines.get(i);
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        Matcher type = TYPE.matcher(h.group(2));
        if (type.find()) {
          section = type.group(1);
          level = h.group(1).length();
          documented.computeIfAbsent(section, k -> new TreeMap<>());
        } else if (h.group(1).length() <= level) {
          section = null;
        }
        continue;
      }
      List<String> cells = Markdown.cells(line);
      String path = cells == null || cells.isEmpty() ? null : Markdown.codeSpan(cells.get(0));
      if (section != null && path != null) {
        documented.get(section).put(path, line);
      }
    }
    return documented;
  }

  private static List<String> fieldProblems(
      Markdown md, Map<String, Set<String>> expected, Map<String, Set<String>> documented) {
    List<String> problems = new ArrayList<>();
    String file = md.file.getFileName().toString();
    for (Map.Entry<String, Set<String>> e : expected.entrySet()) {
      Set<String> doc = documented.get(e.getKey());
      if (doc == null) {
        problems.add(
            file
                + ": no section for "
                + e.getKey()
                + " (a heading naming `"
                + e.getKey()
                + "` and a table of its fields: "
                + e.getValue()
                + ")");
        continue;
      }
      Set<String> missing = new TreeSet<>(e.getValue());
      missing.removeAll(doc);
      Set<String> extra = new TreeSet<>(doc);
      extra.removeAll(e.getValue());
      if (!missing.isEmpty()) {
        problems.add(file + ", section " + e.getKey() + ": fields not documented: " + missing);
      }
      if (!extra.isEmpty()) {
        problems.add(
            file + ", section " + e.getKey() + ": documented but not fields of it: " + extra);
      }
    }
    for (String s : documented.keySet()) {
      if (!expected.containsKey(s)) {
        problems.add(
            file
                + ": section "
                + s
                + " is not a config message nor one that two fields share; sections: "
                + expected.keySet());
      }
    }
    return problems;
  }

  /** Loads every yaml block through the loader its marker names. */
  static List<String> exampleProblems(Markdown md) {
    Map<String, Consumer<String>> loaders =
        Map.of(
            "pipeline request", yaml -> ExperimentConfigLoaders.pipelineLoader().fromYaml(yaml),
            "experiment config", yaml -> ExperimentConfigLoaders.experimentLoader().fromYaml(yaml),
            "pool spec", yaml -> PoolProvisioners.loader().fromYaml(yaml));
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Markdown.Block b : md.blocks()) {
      if (!b.info().equals("yaml")) {
        continue;
      }
      String where = md.file.getFileName() + ":" + b.line();
      Matcher kind = EXAMPLE.matcher(b.comment());
      Consumer<String> loader = kind.matches() ? loaders.get(kind.group(1).strip()) : null;
      if (loader == null) {
        problems.add(
            where
                + ": say what this example is on the line above it: <!-- example: pipeline request"
                + " --> (or experiment config, pool spec)");
        continue;
      }
      try {
        loader.accept(String.join("\n", b.lines()) + "\n");
        checked++;
      } catch (ConfigValidationException e) {
        problems.add(where + ": " + e.getMessage().replace('\n', ' '));
      }
    }
    if (problems.isEmpty() && md.file.getFileName().toString().equals("configuration.md")) {
      assertTrue(checked >= 5, "only " + checked + " yaml examples in " + md.file);
    }
    return problems;
  }
}
