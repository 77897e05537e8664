package dev.keel.gpu.testing;

import dev.keel.api.v1.TableRef;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.TableSchemas;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;

/**
 * A multilabel table as {@code source.task: multilabel} writes it (a float array label, {@code
 * keel.task: multilabel}, the label names as class names): four features uniform in [-1, 1] and
 * three labels, {@code up = x0 > 0}, {@code diagonal = x1 + x2 > 0} and {@code both = x0 > 0 and x3
 * > 0} (a quarter of the rows), each flipped with probability {@value #FLIP}; every sixth row is
 * test.
 */
public final class MultilabelTable {
  public static final double FLIP = 0.02;
  public static final String LABELS = "up,diagonal,both";

  private MultilabelTable() {}

  public static TableRef write(Path dir, int rows, long seed) throws IOException {
    Random random = new Random(seed);
    long[] ids = new long[rows];
    float[][] targets = new float[rows][];
    String[] splits = new String[rows];
    float[][] features = new float[rows][];
    for (int i = 0; i < rows; i++) {
      float[] x = new float[4];
      for (int k = 0; k < 4; k++) {
        x[k] = random.nextFloat() * 2 - 1;
      }
      boolean[] truth = {x[0] > 0, x[1] + x[2] > 0, x[0] > 0 && x[3] > 0};
      float[] t = new float[3];
      for (int j = 0; j < 3; j++) {
        t[j] = truth[j] ^ (random.nextDouble() < FLIP) ? 1f : 0f;
      }
      ids[i] = i;
      targets[i] = t;
      splits[i] = i % 6 == 0 ? "test" : "train";
      features[i] = x;
    }
    String uri = dir.toUri().toString();
    long version =
        new DeltaTableWriter(
                uri,
                TableSchemas.MULTILABEL_FEATURES,
                Map.of(
                    TableSchemas.FEATURE_NAMES_PROPERTY, "x0,x1,x2,x3",
                    TableSchemas.TASK_PROPERTY, "multilabel",
                    TableSchemas.CLASS_NAMES_PROPERTY, LABELS))
            .newAppend()
            .add(
                Columns.of(rows)
                    .add("id", ids)
                    .add("label", targets)
                    .add("split", splits)
                    .add("features", features))
            .commit();
    return TableRef.newBuilder().setUri(uri).setVersion(version).build();
  }
}
