package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.temporal.JsonPlainPayloads;
import dev.keel.api.v1.PipelineRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code source.encoding} arrives from a YAML request, from {@code temporal workflow start}'s JSON
 * (its proto JSON name), and an unknown name or a source that is not text is refused naming {@code
 * source.encoding}.
 */
class SourceEncodingIsReadFromYamlAndJsonAndCheckedByItsPathTest {
  private static final ProtoConfigLoader<PipelineRequest> LOADER =
      new ProtoConfigLoader<>(
          "pipeline request",
          PipelineRequest::newBuilder,
          r -> PipelineRequestValidator.validate(r, ExperimentConfigLoaderTest.NO_SEARCHER_RULES));
  private static final String EXPERIMENT =
      """
      "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": 1}}}""";

  @Test
  void yamlAndTheTemporalCliJsonCarryIt() {
    PipelineRequest yaml =
        LOADER.fromYaml(
            """
        source: {format: csv, uri: /data/customers.csv, label_column: churned, encoding: latin-1}
        target_table: customers
        experiment: {searcher: {name: single, metric: m, max_length: {batches: 1}}}
        """);
    assertEquals("latin-1", yaml.getSource().getEncoding());

    // temporal workflow start --input '{...}' sends json/plain
    String json =
        "{\"source\":{\"format\":\"csv\",\"uri\":\"/data/customers.csv\",\"labelColumn\":\"churned\","
            + "\"encoding\":\"windows-1252\"},\"targetTable\":\"customers\"}";
    PipelineRequest cli = JsonPlainPayloads.read(json, PipelineRequest.class);
    assertEquals("windows-1252", cli.getSource().getEncoding());
  }

  @Test
  void javaNamesAndPythonsLatin1AreKnown() {
    assertEquals(Optional.of(StandardCharsets.UTF_8), SourceEncoding.charset(""));
    assertEquals(Optional.of(StandardCharsets.ISO_8859_1), SourceEncoding.charset("latin-1"));
    assertEquals(Optional.of(StandardCharsets.ISO_8859_1), SourceEncoding.charset("ISO-8859-1"));
    assertEquals(Optional.of(StandardCharsets.UTF_16), SourceEncoding.charset("utf-16"));
    assertEquals(Optional.of(StandardCharsets.UTF_8), SourceEncoding.charset("utf-8-sig"));
    for (String encoding : List.of("latin-1", "utf-8", "UTF-16LE", "cp1252", "utf-8-sig")) {
      assertEquals(List.of(), problems("csv", encoding), encoding);
    }
  }

  @Test
  void anUnknownNameOrASourceThatIsNotTextIsNamed() {
    assertEquals(
        List.of(
            "source.encoding: unknown encoding 'klingon' (e.g. utf-8, latin-1, windows-1252, utf-16)"),
        problems("csv", "klingon"));
    assertEquals(
        List.of(
            "source.encoding: unknown encoding 'utf 8' (e.g. utf-8, latin-1, windows-1252, utf-16)"),
        problems("parquet", "utf 8"));
    assertEquals(
        List.of(
            "source.encoding: only for csv and parquet sources (images and IDX files are not text)"),
        problems("image_folder", "latin-1"));
  }

  private static List<String> problems(String format, String encoding) {
    String labelColumn =
        format.equals("csv") || format.equals("parquet") ? ", \"label_column\": \"y\"" : "";
    try {
      LOADER.fromJson(
          """
          {"source": {"format": "%s", "uri": "/data/x"%s, "encoding": "%s"}, "target_table": "t", %s}
          """
              .formatted(format, labelColumn, encoding, EXPERIMENT));
      return List.of();
    } catch (ConfigValidationException e) {
      return e.problems().stream().map(ConfigProblem::toString).toList();
    }
  }
}
