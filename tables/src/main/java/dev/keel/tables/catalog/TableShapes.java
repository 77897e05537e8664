package dev.keel.tables.catalog;

import dev.keel.api.v1.TableShape;
import dev.keel.tables.TableSchemas;
import io.delta.kernel.Snapshot;
import java.util.Map;

/**
 * The {@link TableShape} of a table version: its kind of rows, what one example is, its classes.
 */
public final class TableShapes {
  public static final String IMAGES = "images";
  public static final String FEATURES = "features";

  private TableShapes() {}

  public static TableShape of(Snapshot snapshot) {
    Map<String, String> properties = snapshot.getTableProperties();
    var columns = snapshot.getSchema().fieldNames();
    TableShape.Builder shape =
        TableShape.newBuilder()
            .setClasses(properties.getOrDefault(TableSchemas.CLASS_NAMES_PROPERTY, ""));
    if (columns.equals(TableSchemas.LABELED_IMAGES.fieldNames())) {
      // tables written before the property existed hold Fashion-MNIST's 28x28
      return shape
          .setKind(IMAGES)
          .setExample(properties.getOrDefault(TableSchemas.IMAGE_SHAPE_PROPERTY, "28x28"))
          .build();
    }
    if (columns.equals(TableSchemas.LABELED_FEATURES.fieldNames())) {
      return shape
          .setKind(FEATURES)
          .setExample(properties.getOrDefault(TableSchemas.FEATURE_NAMES_PROPERTY, ""))
          .build();
    }
    return shape.setKind(String.join(",", columns)).build();
  }
}
