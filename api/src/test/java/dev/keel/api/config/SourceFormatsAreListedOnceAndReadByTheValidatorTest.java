package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.PipelineRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SourceFormat} is the one list of source formats: the validator accepts exactly its names,
 * names them when refusing another, and asks each format for what it needs (a URI, a label column).
 */
class SourceFormatsAreListedOnceAndReadByTheValidatorTest {

  private static List<String> problems(DataSource source) {
    PipelineRequest r = PipelineRequest.newBuilder().setSource(source).setTargetTable("t").build();
    return PipelineRequestValidator.validate(r, ExperimentConfigLoaderTest.NO_SEARCHER_RULES)
        .stream()
        .map(ConfigProblem::toString)
        .filter(p -> p.startsWith("source"))
        .toList();
  }

  @Test
  void theValidatorNamesExactlyTheListedFormats() {
    assertEquals("csv|fashion_mnist|image_folder|parquet", SourceFormat.expected());
    assertEquals(
        List.of("source.format: unknown format 'jsonl' (expected " + SourceFormat.expected() + ")"),
        problems(DataSource.newBuilder().setFormat("jsonl").setUri("/d").build()));
  }

  @Test
  void eachFormatIsAskedWhatItNeeds() {
    for (SourceFormat f : SourceFormat.values()) {
      DataSource.Builder s = DataSource.newBuilder().setFormat(f.configName());
      if (f.tabular()) {
        s.setLabelColumn("label");
      }
      List<String> withoutUri = problems(s.build());
      assertEquals(
          f.needsUri(),
          withoutUri.contains(
              "source.uri: required (a local path, a file: URI or s3://bucket/prefix)"),
          f + ": " + withoutUri);
      assertTrue(problems(s.setUri("/data").build()).isEmpty(), f.toString());
      if (f.tabular()) {
        assertEquals(
            List.of(
                "source.label_column: required for "
                    + f.configName()
                    + " (the column holding the label)"),
            problems(s.clearLabelColumn().build()));
      }
      assertEquals(f, SourceFormat.of(f.configName()).orElseThrow());
    }
  }
}
