package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.PipelineRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pipeline's own rules; searcher rules are stubbed (search-strategies tests the real ones). */
class PipelineRequestValidatorTest {
  private static final ProtoConfigLoader<PipelineRequest> LOADER =
      new ProtoConfigLoader<>(
          "pipeline request",
          PipelineRequest::newBuilder,
          r -> PipelineRequestValidator.validate(r, ExperimentConfigLoaderTest.NO_SEARCHER_RULES));

  @Test
  void acceptsTheDemoRequestAndLetsTheExperimentUseTheTargetTable() {
    PipelineRequest r =
        LOADER.fromJson(
            """
        {"name": "demo", "source": {"format": "fashion_mnist", "uri": "/usr/share/datasets/fashion-mnist"},
         "target_table": "fashion_mnist",
         "experiment": {"searcher": {"name": "single", "metric": "validation_loss", "max_length": {"batches": 100}},
                        "hyperparameters": {"lr": 0.001}}}
        """);
    assertEquals("fashion_mnist", r.getTargetTable());
    assertEquals(
        0.001, r.getExperiment().getHyperparametersOrThrow("lr").getVal().getNumberValue());
  }

  @Test
  void missingSourceAndNestedExperimentProblemsAreAllReported() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromJson(
                    """
        {"target_table": "t", "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": -1}},
         "hyperparameters": {"lr": {"type": "logg"}}}}
        """));
    List<String> lines = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(
        lines.contains(
            "source: missing data source (set source.format, e.g. fashion_mnist, and source.uri; "
                + "or reuse.table to use a table that exists)"),
        lines::toString);
    assertTrue(
        lines.contains("experiment.searcher.max_length.batches: must be > 0, got -1"),
        lines::toString);
    assertTrue(
        lines.contains(
            "experiment.hyperparameters.lr.type: unknown type 'logg' (expected const|int|double|log|categorical)"),
        lines::toString);
  }

  @Test
  void searcherProblemsAreReportedUnderTheExperiment() {
    SearcherRules rules = (c, wellFormed) -> List.of(new ConfigProblem("searcher.name", "stub"));
    PipelineRequest r =
        LOADER.fromJson(
            """
        {"source": {"format": "fashion_mnist"}, "target_table": "t",
         "experiment": {"searcher": {"name": "x", "metric": "m", "max_length": {"batches": 1}}}}
        """);
    assertEquals(
        List.of("experiment.searcher.name: stub"),
        PipelineRequestValidator.validate(r, rules).stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void unknownSourceFormatIsNamed() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromJson(
                    """
        {"source": {"format": "tfrecord"}, "target_table": "t",
         "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": 1}}}}
        """));
    assertEquals(
        "source.format: unknown value 'tfrecord' (expected fashion_mnist|image_folder|csv|parquet)",
        e.problems().get(0).toString());
  }

  @Test
  void eachSourceFieldIsCheckedByItsPath() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromJson(
                    """
        {"source": {"format": "csv", "uri": "rows.csv", "test_fraction": 1.5, "image_size": "28x28",
                    "mode": "upsert", "on_bad_record": "ignore"},
         "target_table": "t",
         "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": 1}}}}
        """));
    assertEquals(
        List.of(
            "source.mode: unknown value 'upsert' (expected append|overwrite)",
            "source.on_bad_record: unknown value 'ignore' (expected fail|skip)",
            "source.label_column: required for csv (the column holding the label)",
            "source.test_fraction: must be in [0, 1], got 1.5",
            "source.image_size: only for image_folder sources"),
        e.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void anImageFolderNeedsAUriAndAnHxWSize() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromJson(
                    """
        {"source": {"format": "image_folder", "image_size": "big", "label_column": "y"}, "target_table": "t",
         "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": 1}}}}
        """));
    assertEquals(
        List.of(
            "source.label_column: only for csv and parquet sources",
            "source.uri: required (a local path, a file: URI or s3://bucket/prefix)",
            "source.image_size: 'big' is not HxW (e.g. 28x28)"),
        e.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void imageModeAndNormalizeAreForImageSourcesAndTheModeTakesItsWords() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromJson(
                    """
        {"source": {"format": "csv", "uri": "rows.csv", "label_column": "y", "image_mode": "rgb",
                    "normalize": true},
         "target_table": "t",
         "experiment": {"searcher": {"name": "single", "metric": "m", "max_length": {"batches": 1}}}}
        """));
    assertEquals(
        List.of(
            "source.image_mode: only for image_folder sources (csv has its own channels)",
            "source.normalize: only for image sources (tabular_mlp standardizes features itself:"
                + " hyperparameter standardize)"),
        e.problems().stream().map(ConfigProblem::toString).toList());
    e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromYaml(
                    """
        source: {format: image_folder, uri: pics, image_mode: colour}
        target_table: t
        experiment: {searcher: {name: single, metric: m, max_length: {batches: 1}}}
        """));
    assertEquals(
        List.of("source.image_mode: unknown value 'colour' (expected grey|rgb)"),
        e.problems().stream().map(ConfigProblem::toString).toList());
    // the words it takes load, on an image folder and (normalize) on Fashion-MNIST
    LOADER.fromYaml(
        """
        source: {format: image_folder, uri: pics, image_mode: rgb, normalize: true, image_size: 32x32}
        target_table: t
        experiment: {searcher: {name: single, metric: m, max_length: {batches: 1}}}
        """);
    LOADER.fromYaml(
        """
        source: {format: fashion_mnist, normalize: true}
        target_table: t
        experiment: {searcher: {name: single, metric: m, max_length: {batches: 1}}}
        """);
  }

  @Test
  void aRegressionSourceIsRefusedByPipelinesUntilTheirScoringTakesIt() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromYaml(
                    """
        name: prices
        source: {format: csv, uri: /data/houses.csv, label_column: price, task: regression}
        target_table: houses
        experiment:
          searcher: {name: single, metric: validation_rmse, smaller_is_better: true, max_length: {batches: 10}}
          hyperparameters: {lr: 0.001}
        """));
    assertEquals(
        List.of(
            "source.task: regression is not yet run by pipelines, whose scoring and champion comparison"
                + " take classification tables only (the default task)"),
        e.problems().stream().map(ConfigProblem::toString).toList());
  }

  @Test
  void multilabelTakesLabelColumnsAndOtherTasksOneLabelColumn() {
    ConfigValidationException e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromYaml(
                    """
        source:
          format: csv
          uri: movies.csv
          task: multilabel
          label_column: genre
          label_columns: [comedy, "", comedy, split, year, "a,b"]
          feature_columns: [year]
          label_limits: {comedy: 3}
        target_table: t
        experiment: {searcher: {name: single, metric: m, max_length: {batches: 1}}}
        """));
    List<String> problems = e.problems().stream().map(ConfigProblem::toString).toList();
    assertEquals(
        List.of(
            "source.label_column: task multilabel takes label_columns (one column per label)",
            "source.label_limits: only for classification (a class per row)",
            "source.label_columns[1]: empty column name",
            "source.label_columns[2]: 'comedy' is named twice",
            "source.label_columns[3]: 'split' is the column that chooses each row's split",
            "source.label_columns[4]: 'year' is also a feature column",
            "source.label_columns[5]: 'a,b' holds a comma, which a label name cannot"),
        problems.subList(1, problems.size()),
        "after the pipeline's refusal of the task: " + problems);
    e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromYaml(
                    """
        source: {format: csv, uri: houses.csv, label_column: price, label_columns: [price]}
        target_table: t
        experiment: {searcher: {name: single, metric: m, max_length: {batches: 1}}}
        """));
    assertEquals(
        List.of(
            "source.label_columns: only for task multilabel (one label per column); classification"
                + " takes one label_column"),
        e.problems().stream().map(ConfigProblem::toString).toList());
    e =
        assertThrows(
            ConfigValidationException.class,
            () ->
                LOADER.fromYaml(
                    """
        source: {format: image_folder, uri: pics, label_columns: [a]}
        target_table: t
        experiment: {searcher: {name: single, metric: m, max_length: {batches: 1}}}
        """));
    assertEquals(
        List.of("source.label_columns: only for csv and parquet sources"),
        e.problems().stream().map(ConfigProblem::toString).toList());
  }
}
