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
  public static final Metric MULTILABEL_ROC_AUC = new MultilabelRocAuc();

  private static final List<Metric> ALL =
      List.of(ACCURACY, LOSS, TOP5_ACCURACY, MACRO_F1, ROC_AUC, MAE, RMSE, R2, MULTILABEL_ROC_AUC);

  private ValidationMetrics() {}

  public static List<Metric> all() {
    return ALL;
  }

  /** The metrics an evaluation of a model on a table of {@code task} reports. */
  public static List<Metric> of(Task task) {
    return ALL.stream().filter(m -> m.task() == null || m.task() == task).toList();
  }

  /**
   * The metric reported under {@code name} (its own or an alias, or {@code <name>.<label>} for a
   * metric reported per label).
   */
  public static Optional<Metric> of(String name) {
    int dot = name.indexOf('.');
    if (dot > 0 && dot < name.length() - 1) {
      String base = name.substring(0, dot);
      return ALL.stream().filter(m -> m.perLabel() && m.name().equals(base)).findFirst();
    }
    return ALL.stream().filter(m -> names(m).anyMatch(name::equals)).findFirst();
  }

  /**
   * Every name a result carries, sorted, with {@code <name>.<label>} for the per-label ones: what
   * {@code searcher.metric} may name.
   */
  public static List<String> names() {
    TreeSet<String> names = new TreeSet<>(ALL.stream().flatMap(ValidationMetrics::names).toList());
    ALL.stream().filter(Metric::perLabel).forEach(m -> names.add(m.name() + ".<label>"));
    return List.copyOf(names);
  }

  /** The name a per-label figure of {@code metric} is reported under. */
  public static String perLabelName(Metric metric, String label) {
    return metric.name() + "." + label;
  }

  static Stream<String> names(Metric m) {
    return Stream.concat(Stream.of(m.name()), m.aliases().stream());
  }
}
