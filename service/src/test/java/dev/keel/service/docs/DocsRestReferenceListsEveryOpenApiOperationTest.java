package dev.keel.service.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.keel.service.security.Permissions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/rest.md lists exactly the operations of the OpenAPI document the server serves
 * (service/src/main/resources/keel/openapi.yaml), one table row each ({@code `GET /api/v1/models`}
 * in the first column), each with the role it needs in the third column: {@code none} for the
 * operations the document serves without a token ({@code security: []}), else what {@link
 * Permissions} asks.
 */
class DocsRestReferenceListsEveryOpenApiOperationTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern OPERATION =
      Pattern.compile("(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (/\\S*)");

  @Test
  void thePageListsEveryOperationOfTheDocumentWithItsRoleAndNoOther() throws IOException {
    SortedMap<String, String> expected = operations();
    SortedMap<String, String> documented = documented(Markdown.read(Docs.page("docs/rest.md")));
    assertTrue(expected.size() >= 30, "operations in openapi.yaml: " + expected.keySet());
    List<String> problems = differences(expected, documented);
    assertEquals(
        List.of(),
        problems,
        "docs/rest.md: one row per operation of openapi.yaml, `METHOD /path` in the first column"
            + " and the role it needs (none, viewer, editor, admin) in the third:\n"
            + String.join("\n", problems));
  }

  static List<String> differences(Map<String, String> expected, Map<String, String> documented) {
    List<String> out = new ArrayList<>();
    expected.forEach(
        (op, role) -> {
          String doc = documented.get(op);
          if (doc == null) {
            out.add(op + ": not on the page (role " + role + ")");
          } else if (!doc.equals(role)) {
            out.add(op + ": the page says role '" + doc + "', it needs " + role);
          }
        });
    documented.keySet().stream()
        .filter(op -> !expected.containsKey(op))
        .forEach(op -> out.add(op + ": on the page but not in openapi.yaml"));
    return out;
  }

  @Test
  void aMissingOperationAndAWrongRoleAreSeen() throws IOException {
    String sample =
        String.join(
            "\n",
            "| operation | what | role |",
            "|---|---|---|",
            "| `GET /api/v1/models` | the registry | viewer |",
            "| `POST /api/v1/models/{name}/{version}/promote` | promote | editor |",
            "");
    SortedMap<String, String> documented = documented(new Markdown(Path.of("s.md"), sample));
    assertEquals("editor", documented.get("POST /api/v1/models/{name}/{version}/promote"));
    SortedMap<String, String> expected = operations();
    List<String> problems = differences(expected, documented);
    assertTrue(
        problems.contains(
            "POST /api/v1/models/{name}/{version}/promote: the page says role 'editor', it needs"
                + " admin"),
        String.join("\n", problems));
    assertTrue(
        problems.contains("GET /api/v1/audit: not on the page (role admin)"),
        String.join("\n", problems));
  }

  /** Every operation of openapi.yaml with the role it needs. */
  static SortedMap<String, String> operations() throws IOException {
    Path file = Docs.page("service/src/main/resources/keel/openapi.yaml");
    JsonNode paths = YAML.readTree(Files.readString(file)).get("paths");
    SortedMap<String, String> out = new TreeMap<>();
    paths
        .fields()
        .forEachRemaining(
            p ->
                p.getValue()
                    .fields()
                    .forEachRemaining(
                        op -> {
                          String method = op.getKey().toUpperCase(Locale.ROOT);
                          JsonNode security = op.getValue().get("security");
                          boolean open = security != null && security.isEmpty();
                          out.put(method + " " + p.getKey(), role(method, p.getKey(), open));
                        }));
    return out;
  }

  static String role(String method, String path, boolean open) {
    return open ? "none" : Permissions.needed(method, path.replaceAll("\\{[^}]+}", "x")).label();
  }

  static SortedMap<String, String> documented(Markdown md) {
    SortedMap<String, String> out = new TreeMap<>();
    for (int i = 0; i < md.lines.size(); i++) {
      List<String> cells = md.inCode(i) ? null : Markdown.cells(md.lines.get(i));
      String first = cells == null || cells.isEmpty() ? null : Markdown.codeSpan(cells.get(0));
      Matcher m = first == null ? null : OPERATION.matcher(first);
      if (m != null && m.matches()) {
        String role = cells.size() > 2 ? cells.get(2).replace("`", "").strip() : "";
        if (out.put(first, role) != null) {
          out.put(first, "listed twice");
        }
      }
    }
    return out;
  }
}
