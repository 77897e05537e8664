package dev.keel.gpu.train.metric;

import dev.keel.gpu.model.Task;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;

/** Every metric a trial's evaluation reports, listed once. */
public final class ValidationMetrics {
  public static final Metric ACCURACY = new Accuracy();
  public static final Metric LOSS = new MeanLoss();
  public static final Metric TOP5_ACCURACY = new TopKAccuracy(5);
  public static final Metric MACRO_F1 = new MacroF1();
  public static final Metric ROC_AUC = new MacroRocAuc();
  public static final Metric MAE = new RegressionMetric(RegressionMetric.Kind.MAE);
  public static final Metric RMSE = new RegressionMetric(RegressionMetric.Kind.RMSE);
  public static final Metric R2 = new RegressionMetric(RegressionMetric.Kind.R2);

  private static final List<Metric> ALL =
      List.of(ACCURACY, LOSS, TOP5_ACCURACY, MACRO_F1, ROC_AUC, MAE, RMSE, R2);

  private ValidationMetrics() {}

  public static List<Metric> all() {
    return ALL;
  }

  /** The metrics an evaluation of a model on a table of {@code task} reports. */
  public static List<Metric> of(Task task) {
    return ALL.stream().filter(m -> m.task() == null || m.task() == task).toList();
  }

  /** The metric reported under {@code name} (its own or an alias). */
  public static Optional<Metric> of(String name) {
    return ALL.stream().filter(m -> names(m).anyMatch(name::equals)).findFirst();
  }

  /** Every name a result carries, sorted: what {@code searcher.metric} may name. */
  public static List<String> names() {
    return List.copyOf(new TreeSet<>(ALL.stream().flatMap(ValidationMetrics::names).toList()));
  }

  static Stream<String> names(Metric m) {
    return Stream.concat(Stream.of(m.name()), m.aliases().stream());
  }
}
