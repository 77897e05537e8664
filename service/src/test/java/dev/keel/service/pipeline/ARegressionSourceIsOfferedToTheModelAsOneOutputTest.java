package dev.keel.service.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.Task;
import org.junit.jupiter.api.Test;

/**
 * The submission's fit check offers a {@code source.task: regression} CSV to the model as a table
 * labelled with values, whose model has one output: {@code tabular_mlp} told to predict 3 classes
 * is refused for it, and taken for the same source labelled with classes.
 */
class ARegressionSourceIsOfferedToTheModelAsOneOutputTest {

  private static PipelineRequest request(Task task) {
    return PipelineRequest.newBuilder()
        .setSource(
            DataSource.newBuilder()
                .setFormat(DataSource.Format.csv)
                .setUri("/data/houses.csv")
                .setLabelColumn("price")
                .setTask(task))
        .setExperiment(
            ExperimentConfig.newBuilder()
                .setModel(
                    ModelSpec.newBuilder()
                        .setName("tabular_mlp")
                        .setParams(
                            Struct.newBuilder()
                                .putFields(
                                    "classes", Value.newBuilder().setNumberValue(3).build()))))
        .build();
  }

  @Test
  void threeClassesAreRefusedForValuesAndTakenForClasses() {
    var problems = ModelFitCheck.problems(request(Task.regression));
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).toString().contains("labelled with values (regression): 0 or 1, got 3"),
        problems.toString());
    assertEquals(0, ModelFitCheck.problems(request(Task.classification)).size());
  }
}
