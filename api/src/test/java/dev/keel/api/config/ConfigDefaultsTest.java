package dev.keel.api.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.api.v1.CheckpointStorage;
import dev.keel.api.v1.DataSpec;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.Resources;
import dev.keel.api.v1.ValidationSpec;
import org.junit.jupiter.api.Test;

class ConfigDefaultsTest {

  @Test
  void fillsEveryDefaultOfAnEmptyConfig() {
    ExperimentConfig c = ConfigDefaults.withDefaults(ExperimentConfig.getDefaultInstance());
    ExperimentConfig expected =
        ExperimentConfig.newBuilder()
            .setData(DataSpec.newBuilder().setValidationFraction(5000.0 / 60000.0))
            .setMaxRestarts(5)
            .setMinCheckpointPeriod(Length.newBuilder().setBatches(200))
            .setResources(Resources.newBuilder().setResourcePool("cpu").setSlotsPerTrial(1))
            .setCheckpointStorage(
                CheckpointStorage.newBuilder()
                    .setSaveExperimentBest(0)
                    .setSaveTrialBest(1)
                    .setSaveTrialLatest(1))
            .setValidation(
                ValidationSpec.newBuilder()
                    .setFraction(5000.0 / 60000.0)
                    .setStratify(true)
                    .setSeed(0))
            .build();
    assertEquals(expected, c);
    // presence, not just values: downstream code may read them without has-checks
    assertEquals(
        true,
        c.getData().hasValidationFraction()
            && c.hasMaxRestarts()
            && c.hasMinCheckpointPeriod()
            && c.getResources().hasSlotsPerTrial()
            && c.getCheckpointStorage().hasSaveExperimentBest());
  }

  @Test
  void keepsWhatTheConfigSetsEvenWhereItEqualsZero() {
    ExperimentConfig set =
        ExperimentConfig.newBuilder()
            .setName("n")
            .setData(DataSpec.newBuilder().setTable("t").setValidationFraction(0.2))
            .setMaxRestarts(0)
            .setMinCheckpointPeriod(Length.newBuilder().setEpochs(1))
            .setResources(Resources.newBuilder().setResourcePool("gpu").setSlotsPerTrial(2))
            .setCheckpointStorage(
                CheckpointStorage.newBuilder()
                    .setStoragePath("s3://b/c")
                    .setSaveExperimentBest(3)
                    .setSaveTrialBest(0)
                    .setSaveTrialLatest(0))
            .setValidation(
                ValidationSpec.newBuilder().setFraction(0.2).setStratify(false).setSeed(7))
            .build();
    assertEquals(set, ConfigDefaults.withDefaults(set));
  }

  @Test
  void takesTheValidationFractionFromEitherSpellingAndWritesBoth() {
    ExperimentConfig old =
        ConfigDefaults.withDefaults(
            ExperimentConfig.newBuilder()
                .setData(DataSpec.newBuilder().setValidationFraction(0.25))
                .build());
    assertEquals(
        ValidationSpec.newBuilder().setFraction(0.25).setStratify(true).setSeed(0).build(),
        old.getValidation());
    ExperimentConfig current =
        ConfigDefaults.withDefaults(
            ExperimentConfig.newBuilder()
                .setValidation(ValidationSpec.newBuilder().setFraction(0.3).setStratify(false))
                .build());
    assertEquals(0.3, current.getData().getValidationFraction());
    assertEquals(false, current.getValidation().getStratify());
  }

  @Test
  void isIdempotent() {
    ExperimentConfig once =
        ConfigDefaults.withDefaults(ExperimentConfig.newBuilder().setName("x").build());
    assertEquals(once, ConfigDefaults.withDefaults(once));
  }

  @Test
  void fillsRunOptionsLeftAtZero() {
    ExperimentRunOptions o =
        ConfigDefaults.withDefaults(
            ExperimentRunOptions.newBuilder().setWithoutCatalog(true).build());
    assertEquals(
        ExperimentRunOptions.newBuilder()
            .setWithoutCatalog(true)
            .setHeartbeatTimeoutSeconds(60)
            .setContinueAsNewAfterEvents(8000)
            .setCatalogBatchRows(200)
            .build(),
        o);
    ExperimentRunOptions set =
        ExperimentRunOptions.newBuilder()
            .setHeartbeatTimeoutSeconds(2)
            .setContinueAsNewAfterEvents(300)
            .setCatalogBatchRows(1)
            .build();
    assertEquals(set, ConfigDefaults.withDefaults(set));
  }
}
