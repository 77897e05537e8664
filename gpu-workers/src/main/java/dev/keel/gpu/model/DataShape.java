package dev.keel.gpu.model;

import ai.djl.ndarray.types.Shape;
import dev.keel.tables.dataset.ImageNormalization;
import dev.keel.tables.dataset.LabeledExamples;
import dev.keel.tables.dataset.LabeledImages;
import java.util.Optional;

/**
 * What a model is told about a table before it is built: which table (for messages), what one
 * example is and how many classes the labels name. {@link KeelModel#fitTo} checks it and, for a
 * model whose input depends on the table, records it in the hyperparameters.
 *
 * @param table the table and version, e.g. {@code file:///…/iris v3}
 * @param source what {@code table} names, for messages: {@code table}, or {@code source} for the
 *     files a table will be made of (checked at submission, before the ETL)
 * @param examples what one example is, for messages ({@code 28x28 images}, {@code vectors of 4
 *     features})
 * @param example shape of one example without the batch axis
 * @param classes the number of class names of the table, else the largest label plus one; 1 for a
 *     regression table, whose model has one output; the number of labels of a multilabel table
 * @param task what the labels are: classes, values to predict, or yes/no targets per label
 * @param normalization what the table says its images are normalised with ({@code
 *     source.normalize}); {@link ImageNormalization#NONE} for features and unnormalised images
 */
public record DataShape(
    String table,
    Kind kind,
    String examples,
    Shape example,
    int classes,
    String source,
    Task task,
    ImageNormalization normalization) {

  public DataShape(
      String table,
      Kind kind,
      String examples,
      Shape example,
      int classes,
      String source,
      Task task) {
    this(table, kind, examples, example, classes, source, task, ImageNormalization.NONE);
  }

  public DataShape(String table, Kind kind, String examples, Shape example, int classes) {
    this(table, kind, examples, example, classes, "table");
  }

  public DataShape(
      String table, Kind kind, String examples, Shape example, int classes, String source) {
    this(table, kind, examples, example, classes, source, Task.CLASSIFICATION);
  }

  /** Whether the labels are values to predict (one model output). */
  public boolean regression() {
    return task == Task.REGRESSION;
  }

  /** Whether each row has several yes/no targets (one model output per label). */
  public boolean multilabel() {
    return task == Task.MULTILABEL;
  }

  /**
   * The hyperparameters with an empty {@code loss} set to a regression or multilabel table's
   * default, so that the checkpoint's hyperparameters alone tell the task; a classification's stay
   * as they are.
   */
  public Hyperparameters withTaskLoss(Hyperparameters hp) {
    if (!hp.asMap().containsKey(TrainingHyperparameters.LOSS)) {
      return hp;
    }
    String name = hp.getString(TrainingHyperparameters.LOSS).strip();
    if (name.isEmpty()) {
      return task == Task.CLASSIFICATION
          ? hp
          : hp.with(TrainingHyperparameters.LOSS, task.defaultLoss());
    }
    Optional<Task> loss = Task.ofLoss(name);
    if (loss.isPresent() && loss.get() != task) {
      throw new InvalidFieldException(
          "hyperparameters." + TrainingHyperparameters.LOSS,
          "'"
              + name
              + "' is a "
              + loss.get().spelling()
              + " loss, but "
              + subject()
              + " is labelled for "
              + task.spelling());
    }
    return hp;
  }

  /**
   * The hyperparameters with the image normalisation the model is fed with recorded ({@link
   * InputNormalization}): the table's unless the configuration set its own, so that a checkpoint's
   * hyperparameters alone say what its inputs are.
   *
   * @throws InvalidFieldException naming the hyperparameter when a set one does not fit the table
   */
  public Hyperparameters withInputNormalization(Hyperparameters hp) {
    ImageNormalization set = InputNormalization.of(hp);
    if (set.isNone()) {
      return normalization.isNone() ? hp : InputNormalization.record(hp, normalization);
    }
    if (kind != Kind.IMAGES || set.channels() != example.get(0)) {
      throw new InvalidFieldException(
          "hyperparameters." + InputNormalization.MEAN,
          "gives " + set.channels() + " channel(s), but " + subject() + " holds " + examples);
    }
    return hp;
  }

  /**
   * The refusal of a model that does not take these examples: {@code data: <subject> holds
   * <examples>, but model <model> takes <takes>}.
   */
  public InvalidFieldException notTakenBy(String model, String takes) {
    return new InvalidFieldException(
        "data", subject() + " holds " + examples + ", but model " + model + " takes " + takes);
  }

  /**
   * @throws InvalidFieldException ({@code data}) when the table has more classes than a model with
   *     {@code outputs} outputs predicts
   */
  public void requireAtMostClasses(String model, int outputs) {
    if (classes > outputs) {
      throw new InvalidFieldException(
          "data",
          subject() + " has " + classes + " classes, but model " + model + " predicts " + outputs);
    }
  }

  /** What the shape is of, as messages name it: {@code table file:///…/iris v3}. */
  public String subject() {
    return source + " " + table;
  }

  /** The two kinds of labeled table. */
  public enum Kind {
    IMAGES,
    FEATURES
  }

  /**
   * @throws InvalidFieldException ({@code data}) naming the table and the row when a label is
   *     negative or has no class name
   */
  public static DataShape of(String table, LabeledExamples data) {
    if (data.values() != null) {
      Task task = Task.of(data);
      return new DataShape(
          table,
          Kind.FEATURES,
          data.describe(),
          new Shape(data.exampleShape()),
          data.valueWidth(),
          "table",
          task);
    }
    int names = data.classNames().size();
    int max = -1;
    int[] labels = data.labels();
    for (int i = 0; i < labels.length; i++) {
      if (labels[i] < 0 || (names > 0 && labels[i] >= names)) {
        throw new InvalidFieldException(
            "data",
            "table "
                + table
                + ": label "
                + labels[i]
                + " of id "
                + data.ids()[i]
                + (labels[i] < 0
                    ? " is negative"
                    : " has no class name (the table names " + names + " classes)"));
      }
      max = Math.max(max, labels[i]);
    }
    Kind kind = data instanceof LabeledImages ? Kind.IMAGES : Kind.FEATURES;
    return new DataShape(
        table,
        kind,
        data.describe(),
        new Shape(data.exampleShape()),
        names > 0 ? names : max + 1,
        "table",
        Task.CLASSIFICATION,
        data instanceof LabeledImages images ? images.normalization() : ImageNormalization.NONE);
  }
}
