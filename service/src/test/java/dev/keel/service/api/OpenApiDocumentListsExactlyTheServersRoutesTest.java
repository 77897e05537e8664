package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document the server serves at {@code /openapi.yaml} names exactly the routes its
 * controllers answer (method and path), declares every path variable, gives every operation a
 * unique id and responses, and every {@code $ref} it uses resolves.
 */
class OpenApiDocumentListsExactlyTheServersRoutesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern VARIABLE = Pattern.compile("\\{(\\w+)}");
  private static LoopbackStack stack;
  private static ApiServer api;
  private static JsonNode document;

  @BeforeAll
  static void start() throws Exception {
    stack = LoopbackStack.start("openapi");
    api = ApiServer.start("127.0.0.1", 0, stack.client(), stack.root());
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(api.url() + "/openapi.yaml")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("application/yaml", r.headers().firstValue("Content-Type").orElse(""));
    document = YAML.readTree(r.body());
  }

  @AfterAll
  static void stop() {
    api.close();
    stack.close();
  }

  @Test
  void everyRouteIsDocumentedAndEveryDocumentedOperationIsARoute() {
    assertEquals("3.0.3", document.get("openapi").asText());
    SortedSet<String> documented = new TreeSet<>();
    document
        .get("paths")
        .fields()
        .forEachRemaining(
            path ->
                path.getValue()
                    .fieldNames()
                    .forEachRemaining(
                        method ->
                            documented.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey())));
    assertEquals(api.routes(), documented);
  }

  @Test
  void operationsHaveUniqueIdsResponsesAndTheirPathVariables() {
    Set<String> ids = new HashSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> paths = document.get("paths").fields();
        paths.hasNext(); ) {
      Map.Entry<String, JsonNode> path = paths.next();
      Set<String> variables = new TreeSet<>();
      Matcher m = VARIABLE.matcher(path.getKey());
      while (m.find()) {
        variables.add(m.group(1));
      }
      path.getValue()
          .fields()
          .forEachRemaining(
              op -> {
                String where = op.getKey() + " " + path.getKey();
                assertTrue(
                    ids.add(op.getValue().path("operationId").asText()), "operationId of " + where);
                assertTrue(op.getValue().path("responses").size() > 0, "responses of " + where);
                Set<String> declared = new TreeSet<>();
                op.getValue()
                    .path("parameters")
                    .forEach(
                        p -> {
                          JsonNode param = resolve(p);
                          if ("path".equals(param.path("in").asText())) {
                            declared.add(param.path("name").asText());
                          }
                        });
                assertEquals(variables, declared, "path parameters of " + where);
              });
    }
  }

  @Test
  void everyReferenceResolves() {
    Set<String> refs = new TreeSet<>();
    collectRefs(document, refs);
    assertFalse(refs.isEmpty());
    for (String ref : refs) {
      assertFalse(resolve(YAML.createObjectNode().put("$ref", ref)).isMissingNode(), ref);
    }
  }

  private static JsonNode resolve(JsonNode node) {
    if (!node.has("$ref")) {
      return node;
    }
    return document.at(node.get("$ref").asText().substring(1));
  }

  private static void collectRefs(JsonNode node, Set<String> refs) {
    if (node.has("$ref")) {
      refs.add(node.get("$ref").asText());
    }
    node.elements().forEachRemaining(child -> collectRefs(child, refs));
  }
}
