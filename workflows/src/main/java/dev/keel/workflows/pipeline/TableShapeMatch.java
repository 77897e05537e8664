package dev.keel.workflows.pipeline;

import dev.keel.api.config.SourceFormat;
import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.TableShape;
import java.util.Optional;

/**
 * Whether a model trained on one table version can score or train on another: same kind of rows,
 * same example (image size or feature columns), same classes when both name theirs. A reused model
 * or experiment of another schema is refused before any stage does work with it.
 */
final class TableShapeMatch {
  private TableShapeMatch() {}

  /** Why {@code data} does not fit a model trained on {@code trainedOn}; empty when it fits. */
  static Optional<String> mismatch(TableShape trainedOn, TableShape data) {
    if (!trainedOn.getKind().equals(data.getKind())
        || !trainedOn.getExample().equals(data.getExample())) {
      return Optional.of("it holds " + describe(data));
    }
    if (!trainedOn.getClasses().isEmpty()
        && !data.getClasses().isEmpty()
        && !trainedOn.getClasses().equals(data.getClasses())) {
      return Optional.of(
          "its classes are ["
              + data.getClasses().replace(",", ", ")
              + "], not ["
              + trainedOn.getClasses().replace(",", ", ")
              + "]");
    }
    return Optional.empty();
  }

  /**
   * Why an ETL source of {@code format} cannot give rows a model trained on {@code trainedOn}
   * reads; empty when it can.
   */
  static Optional<String> formatMismatch(TableShape trainedOn, DataSource.Format format) {
    String kind = SourceFormat.of(format).map(f -> f.rows().kind()).orElse("");
    if (kind.isEmpty() || kind.equals(trainedOn.getKind())) {
      return Optional.empty();
    }
    return Optional.of("a " + format.name() + " source gives " + kind);
  }

  /** {@code 28x28 images}, {@code 3 features [a, b, c]}, with the number of classes when named. */
  static String describe(TableShape shape) {
    String what =
        switch (shape.getKind()) {
          case "images" -> shape.getExample() + " images";
          case "features" -> {
            String[] names = shape.getExample().split(",", -1);
            yield names.length
                + " features ["
                + (names.length <= 6
                    ? String.join(", ", names)
                    : String.join(", ", names[0], names[1], names[2])
                        + ", …, "
                        + names[names.length - 1])
                + "]";
          }
          default -> "columns [" + shape.getKind().replace(",", ", ") + "]";
        };
    int classes = shape.getClasses().isEmpty() ? 0 : shape.getClasses().split(",", -1).length;
    return classes > 0 ? what + " of " + classes + " classes" : what;
  }
}
