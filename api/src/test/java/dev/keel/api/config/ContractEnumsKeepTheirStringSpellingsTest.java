package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.temporal.JsonPlainPayloads;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.InferenceProgress;
import dev.keel.api.v1.IngestMode;
import dev.keel.api.v1.IngestResult;
import dev.keel.api.v1.ModelSelector;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.PipelineProgress;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PromoteModelRequest;
import dev.keel.api.v1.Promotion;
import dev.keel.api.v1.SearcherConfig;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The contract's enums (source format, ingest mode, on_bad_record, promotion policy, model stage,
 * ASHA mode, pipeline stage and status, comparison decision, inference stage) were strings. Their
 * value names are those strings, so YAML configs, {@code temporal workflow start} JSON and the JSON
 * payloads of histories recorded before the change read and print exactly as before.
 */
class ContractEnumsKeepTheirStringSpellingsTest {
  private static final ProtoConfigLoader<PipelineRequest> SHAPE_ONLY =
      new ProtoConfigLoader<>("pipeline request", PipelineRequest::newBuilder, r -> List.of());

  /** Each enum field the change made, with the words it had as a string. */
  private record Spelled(FieldDescriptor field, List<String> words) {}

  private static Spelled spelled(Descriptor message, String field, String... words) {
    return new Spelled(message.findFieldByName(field), List.of(words));
  }

  private static final List<Spelled> FIELDS =
      List.of(
          spelled(
              DataSource.getDescriptor(),
              "format",
              "fashion_mnist",
              "image_folder",
              "csv",
              "parquet"),
          spelled(DataSource.getDescriptor(), "mode", "append", "overwrite"),
          spelled(IngestResult.getDescriptor(), "mode", "append", "overwrite"),
          spelled(DataSource.getDescriptor(), "on_bad_record", "fail", "skip"),
          spelled(DataSource.getDescriptor(), "task", "classification", "multilabel", "regression"),
          spelled(Promotion.getDescriptor(), "policy", "champion_challenger", "always", "never"),
          spelled(ModelSelector.getDescriptor(), "stage", "champion"),
          spelled(ModelVersion.getDescriptor(), "stage", "candidate", "champion", "archived"),
          spelled(
              PromoteModelRequest.getDescriptor(), "stage", "candidate", "champion", "archived"),
          spelled(SearcherConfig.getDescriptor(), "mode", "aggressive", "standard", "conservative"),
          spelled(
              PipelineProgress.getDescriptor(),
              "stage",
              "validate",
              "etl",
              "search",
              "train",
              "register",
              "infer",
              "promote",
              "done"),
          spelled(PipelineProgress.getDescriptor(), "status", "running", "completed", "failed"),
          spelled(Comparison.getDescriptor(), "decision", "promoted", "kept_champion"),
          spelled(ModelSpec.getDescriptor(), "init", "file", "reinitialize"),
          spelled(
              InferenceProgress.getDescriptor(),
              "stage",
              "plan",
              "score",
              "commit",
              "done",
              "failed"));

  @Test
  void everyOldStringIsAValueNameAndTheOnlyOnes() {
    for (Spelled s : FIELDS) {
      assertEquals(FieldDescriptor.Type.ENUM, s.field().getType(), s.field().getFullName());
      List<String> names =
          s.field().getEnumType().getValues().stream()
              .filter(v -> v.getNumber() != 0)
              .map(EnumValueDescriptor::getName)
              .toList();
      if (s.field().getContainingType() == ModelSelector.getDescriptor()) {
        // a selector shares the model stages' enum; its validator takes champion only
        assertTrue(names.containsAll(s.words()), names.toString());
      } else {
        assertEquals(s.words(), names, s.field().getFullName());
      }
    }
  }

  @Test
  void eachWordPrintsAsItselfInJsonAndReadsBackFromJsonPlainAsTheTemporalCliSendsIt()
      throws Exception {
    for (Spelled s : FIELDS) {
      for (String word : s.words()) {
        Message.Builder b = DynamicMessage.newBuilder(s.field().getContainingType());
        b.setField(s.field(), s.field().getEnumType().findValueByName(word));
        String json = JsonFormat.printer().omittingInsignificantWhitespace().print(b);
        String expected = "\"" + s.field().getJsonName() + "\":\"" + word + "\"";
        assertTrue(json.contains(expected), json + " should hold " + expected);
      }
    }
    String cli =
        "{\"name\":\"n\",\"target_table\":\"t\",\"source\":{\"format\":\"csv\",\"uri\":\"/d\","
            + "\"label_column\":\"y\",\"mode\":\"overwrite\",\"on_bad_record\":\"skip\"},"
            + "\"promotion\":{\"policy\":\"never\"},"
            + "\"experiment\":{\"searcher\":{\"name\":\"adaptive_asha\",\"mode\":\"aggressive\"}}}";
    PipelineRequest r = JsonPlainPayloads.read(cli, PipelineRequest.class);
    assertEquals(DataSource.Format.csv, r.getSource().getFormat());
    assertEquals(IngestMode.overwrite, r.getSource().getMode());
    assertEquals(DataSource.OnBadRecord.skip, r.getSource().getOnBadRecord());
    assertEquals(Promotion.Policy.never, r.getPromotion().getPolicy());
    assertEquals(SearcherConfig.Mode.aggressive, r.getExperiment().getSearcher().getMode());
  }

  @Test
  void yamlConfigsUseTheSameWords() {
    PipelineRequest r =
        SHAPE_ONLY.fromYaml(
            """
            name: n
            target_table: t
            source: {format: image_folder, uri: /d, mode: append, on_bad_record: fail}
            warm_start: {model: {name: m, stage: champion}}
            promotion: {policy: champion_challenger}
            """);
    assertEquals(DataSource.Format.image_folder, r.getSource().getFormat());
    assertEquals(ModelStage.champion, r.getWarmStart().getModel().getStage());
    assertEquals(Promotion.Policy.champion_challenger, r.getPromotion().getPolicy());
  }

  @Test
  void anUnknownWordOrTheUnsetNameIsRefusedNamingTheFieldAndTheWordsItTakes() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                SHAPE_ONLY.fromYaml(
                    """
                    source: {format: jsonl, mode: FORMAT_UNSPECIFIED, on_bad_record: 3}
                    promotion: {policy: CHAMPION_CHALLENGER}
                    """));
    assertEquals(
        List.of(
            "source.format: unknown value 'jsonl' (expected fashion_mnist|image_folder|csv|parquet)",
            "source.mode: unknown value 'FORMAT_UNSPECIFIED' (expected append|overwrite)",
            "source.on_bad_record: expected a name, got 3 (expected fail|skip)",
            "promotion.policy: unknown value 'CHAMPION_CHALLENGER'"
                + " (expected champion_challenger|always|never)"),
        e.problems().stream().map(ConfigProblem::toString).toList());
    assertThrows(
        ConfigValidationException.class,
        () -> SHAPE_ONLY.fromYaml("source: {format: csv, mode: INGEST_MODE_UNSPECIFIED}"));
  }

  @Test
  void aNumberNoValueNamesIsRefusedByTheValidatorNotDropped() {
    // binary payloads of a client built against newer protos keep unknown numbers
    PipelineRequest r =
        PipelineRequest.newBuilder()
            .setTargetTable("t")
            .setSource(DataSource.newBuilder().setFormatValue(42).setUri("/d"))
            .build();
    String problems =
        PipelineRequestValidator.validate(r, ExperimentConfigLoaderTest.NO_SEARCHER_RULES).stream()
            .map(ConfigProblem::toString)
            .collect(Collectors.joining("\n"));
    assertTrue(
        problems.contains(
            "source.format: unknown value 42 (expected fashion_mnist|image_folder|csv|parquet)"),
        problems);
  }

  @Test
  void sourceFormatDescribesEachFormatOfTheContractOnce() {
    List<DataSource.Format> described =
        Arrays.stream(SourceFormat.values()).map(SourceFormat::proto).toList();
    List<DataSource.Format> contract =
        Arrays.stream(DataSource.Format.values())
            .filter(
                f ->
                    f != DataSource.Format.FORMAT_UNSPECIFIED
                        && f != DataSource.Format.UNRECOGNIZED)
            .toList();
    assertEquals(contract, described);
    for (SourceFormat f : SourceFormat.values()) {
      assertEquals(f, SourceFormat.of(f.proto()).orElseThrow());
    }
    assertEquals("csv|fashion_mnist|image_folder|parquet", SourceFormat.expected());
  }

  @Test
  void theValidatorAsksEachFormatWhatItNeeds() {
    for (SourceFormat f : SourceFormat.values()) {
      DataSource.Builder s = DataSource.newBuilder().setFormat(f.proto());
      if (f.tabular()) {
        s.setLabelColumn("label");
      }
      List<String> withoutUri = sourceProblems(s.build());
      assertEquals(
          f.needsUri(),
          withoutUri.contains(
              "source.uri: required (a local path, a file: URI or s3://bucket/prefix)"),
          f + ": " + withoutUri);
      assertTrue(sourceProblems(s.setUri("/data").build()).isEmpty(), f.toString());
      if (f.tabular()) {
        assertEquals(
            List.of(
                "source.label_column: required for "
                    + f.configName()
                    + " (the column holding the label)"),
            sourceProblems(s.clearLabelColumn().build()));
      }
    }
    assertEquals(
        List.of("source.format: required (expected " + SourceFormat.expected() + ")"),
        sourceProblems(DataSource.newBuilder().setUri("/d").build()));
  }

  private static List<String> sourceProblems(DataSource source) {
    PipelineRequest r = PipelineRequest.newBuilder().setSource(source).setTargetTable("t").build();
    return PipelineRequestValidator.validate(r, ExperimentConfigLoaderTest.NO_SEARCHER_RULES)
        .stream()
        .map(ConfigProblem::toString)
        .filter(p -> p.startsWith("source"))
        .toList();
  }

  @Test
  void experimentConfigsToo() {
    ExperimentConfig c =
        new ProtoConfigLoader<ExperimentConfig>(
                "experiment", ExperimentConfig::newBuilder, x -> List.of())
            .fromYaml("searcher: {name: adaptive_asha, mode: conservative}");
    assertEquals(SearcherConfig.Mode.conservative, c.getSearcher().getMode());
  }
}
