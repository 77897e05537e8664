package dev.keel.gpu.model;

import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.Dropout;
import dev.keel.tables.dataset.LabeledExamples;
import java.util.Map;

/**
 * Built-in {@code tabular_mlp}: for labeled-features tables. Optional per-feature standardization
 * ({@link Standardization}, statistics of the training rows only), then {@code hidden_layers} dense
 * layers of {@code hidden_units} with ReLU and dropout, then one logit per class.
 *
 * <p>Its input width and class count come from the table: {@link #fitTo} records them as the
 * hyperparameters {@code features} and {@code classes} (0 in a config means "from the table"; a
 * value set there must match it), so the checkpoint's hyperparameters rebuild the block, and
 * scoring a table with another feature count fails with both counts.
 */
public final class TabularMlp implements KeelModel {
  public static final String NAME = "tabular_mlp";
  public static final String HIDDEN_LAYERS = "hidden_layers";
  public static final String HIDDEN_UNITS = "hidden_units";
  public static final String DROPOUT = "dropout";
  public static final String STANDARDIZE = "standardize";
  public static final String FEATURES = "features";
  public static final String CLASSES = "classes";

  /**
   * A feature whose deviation on the training rows is below this is constant there: it is centred,
   * not scaled.
   */
  static final double CONSTANT_FEATURE = 1e-6;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Map<String, Object> hyperparameterDefaults() {
    return Map.of(
        TrainingHyperparameters.LR,
        1e-3,
        TrainingHyperparameters.BATCH_SIZE,
        64L,
        HIDDEN_LAYERS,
        2L,
        HIDDEN_UNITS,
        128L,
        DROPOUT,
        0.1,
        STANDARDIZE,
        true,
        FEATURES,
        0L,
        CLASSES,
        0L);
  }

  /** Not known without the table: see {@link #inputShape(Hyperparameters)}. */
  @Override
  public Shape inputShape() {
    throw new IllegalStateException(
        NAME + " takes as many features as its table has: use inputShape(hyperparameters)");
  }

  /** Not known without the table: see {@link #fitTo}. */
  @Override
  public int numClasses() {
    throw new IllegalStateException(
        NAME + " predicts as many classes as its table has: see hyperparameter " + CLASSES);
  }

  @Override
  public Shape inputShape(Hyperparameters hp) {
    int features = hp.getInt(FEATURES);
    if (features < 1) {
      throw new IllegalStateException(
          NAME + " is not fitted to a table yet (hyperparameters.features = 0)");
    }
    return new Shape(features);
  }

  @Override
  public Hyperparameters fitTo(Hyperparameters hp, DataShape data) {
    if (data.kind() != DataShape.Kind.FEATURES) {
      throw data.notTakenBy(
          NAME,
          "feature vectors (a labeled-features table); images need an image model such as"
              + " fashion_cnn");
    }
    int features = Math.toIntExact(data.example().get(0));
    int declared = hp.getInt(FEATURES);
    if (declared != 0 && declared != features) {
      throw data.notTakenBy(NAME, declared + " features (hyperparameters." + FEATURES + ")");
    }
    int classes = hp.getInt(CLASSES);
    if (data.multilabel()) {
      // one output per label, each its own yes/no logit
      if (classes != 0 && classes != data.classes()) {
        throw new InvalidFieldException(
            "hyperparameters." + CLASSES,
            data.subject()
                + " has "
                + data.classes()
                + " labels (multilabel): 0 or "
                + data.classes()
                + ", got "
                + classes);
      }
      return hp.with(FEATURES, (long) features).with(CLASSES, (long) data.classes());
    }
    if (data.regression()) {
      // one output: the value
      if (classes > 1) {
        throw new InvalidFieldException(
            "hyperparameters." + CLASSES,
            data.subject() + " is labelled with values (regression): 0 or 1, got " + classes);
      }
      return hp.with(FEATURES, (long) features).with(CLASSES, 1L);
    }
    if (classes != 0 && data.classes() > classes) {
      throw new InvalidFieldException(
          "data",
          data.subject()
              + " has "
              + data.classes()
              + " classes, but model "
              + NAME
              + " predicts "
              + classes
              + " (hyperparameters."
              + CLASSES
              + ")");
    }
    if (classes == 0 && data.classes() < 2) {
      throw new InvalidFieldException(
          "data",
          data.subject() + " has " + data.classes() + " class(es); " + NAME + " needs at least 2");
    }
    return hp.with(FEATURES, (long) features)
        .with(CLASSES, (long) (classes != 0 ? classes : data.classes()));
  }

  /**
   * Builds the block. Before {@link #fitTo} ({@code classes} still 0) it has a placeholder output
   * of 2 logits: {@code TrainingPlan} builds once just to validate the hyperparameters, before the
   * table is read; {@code inputShape} refuses to initialize such a block.
   */
  @Override
  public Block build(Hyperparameters hp) {
    int layers = hp.getInt(HIDDEN_LAYERS);
    int units = hp.getInt(HIDDEN_UNITS);
    float dropout = (float) hp.getDouble(DROPOUT);
    int features = hp.getInt(FEATURES);
    int classes = hp.getInt(CLASSES);
    if (layers < 0 || layers > 16) {
      throw new InvalidFieldException(
          "hyperparameters." + HIDDEN_LAYERS, "must be in [0, 16], got " + layers);
    }
    if (units < 1 || units > 65536) {
      throw new InvalidFieldException(
          "hyperparameters." + HIDDEN_UNITS, "must be in [1, 65536], got " + units);
    }
    if (!(dropout >= 0 && dropout < 1)) {
      throw new InvalidFieldException(
          "hyperparameters." + DROPOUT, "must be in [0, 1), got " + dropout);
    }
    if (features < 0) {
      throw new InvalidFieldException(
          "hyperparameters." + FEATURES, "must be >= 0 (0 = from the table), got " + features);
    }
    boolean oneOutputAllowed =
        Task.ofLoss(hp.getString(TrainingHyperparameters.LOSS).strip())
            .map(t -> t != Task.CLASSIFICATION)
            .orElse(false);
    if (classes < 0 || (classes == 1 && !oneOutputAllowed)) {
      throw new InvalidFieldException(
          "hyperparameters." + CLASSES,
          "must be 0 (from the table) or >= 2 (1 with a regression or multilabel loss), got "
              + classes);
    }
    SequentialBlock net = new SequentialBlock();
    if (hp.getBoolean(STANDARDIZE)) {
      net.add(new Standardization());
    }
    for (int i = 0; i < layers; i++) {
      net.add(Linear.builder().setUnits(units).build());
      net.add(Activation.reluBlock());
      if (dropout > 0) {
        net.add(Dropout.builder().optRate(dropout).build());
      }
    }
    net.add(Linear.builder().setUnits(classes == 0 ? 2 : classes).build());
    return net;
  }

  /**
   * Per-feature mean and (population) standard deviation of the training rows, summed in row order
   * in doubles.
   */
  @Override
  public void fitInputs(Block block, LabeledExamples trainingRows) {
    if (!(block instanceof SequentialBlock net)
        || net.getChildren().isEmpty()
        || !(net.getChildren().get(0).getValue() instanceof Standardization standardization)) {
      return; // standardize = false
    }
    int width = trainingRows.exampleSize();
    int n = trainingRows.size();
    float[] all = trainingRows.floats(allRows(n));
    double[] sum = new double[width];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < width; k++) {
        sum[k] += all[i * width + k];
      }
    }
    float[] mean = new float[width];
    double[] squares = new double[width];
    for (int k = 0; k < width; k++) {
      mean[k] = (float) (sum[k] / n);
    }
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < width; k++) {
        double d = all[i * width + k] - (double) mean[k];
        squares[k] += d * d;
      }
    }
    float[] std = new float[width];
    for (int k = 0; k < width; k++) {
      double sd = Math.sqrt(squares[k] / n);
      std[k] = sd < CONSTANT_FEATURE ? 1f : (float) sd;
    }
    standardization.setStatistics(mean, std);
  }

  private static int[] allRows(int n) {
    int[] rows = new int[n];
    for (int i = 0; i < n; i++) {
      rows[i] = i;
    }
    return rows;
  }
}
