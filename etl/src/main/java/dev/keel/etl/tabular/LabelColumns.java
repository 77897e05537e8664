package dev.keel.etl.tabular;

import dev.keel.api.v1.DataSource;
import dev.keel.api.v1.Task;
import java.util.List;

/**
 * The columns a tabular source's label is read from, and the field that named them for messages:
 * {@code source.label_column} (one class or value per row), or {@code source.label_columns} for
 * {@code task: multilabel} (one 0/1 target per column).
 *
 * @param field the configuration field, for messages
 * @param names the columns, in order
 */
public record LabelColumns(String field, List<String> names) {
  public LabelColumns {
    names = List.copyOf(names);
  }

  /** What {@code source} names as its label. */
  public static LabelColumns of(DataSource source) {
    return source.getTask() == Task.multilabel
        ? new LabelColumns("source.label_columns", source.getLabelColumnsList())
        : one(source.getLabelColumn());
  }

  /** A single label column ({@code source.label_column}). */
  public static LabelColumns one(String column) {
    return new LabelColumns("source.label_column", List.of(column));
  }

  boolean contains(String column) {
    return names.contains(column);
  }

  /** For messages: {@code 'label'} or {@code ['cat', 'dog']}. */
  String describe() {
    return names.size() == 1 ? "'" + names.get(0) + "'" : names.toString();
  }
}
