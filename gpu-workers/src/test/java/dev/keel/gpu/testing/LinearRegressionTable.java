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
 * A regression table as {@code source.task: regression} writes it (a float label, {@code keel.task:
 * regression}): four features uniform in [-1, 1] and the label {@code 3 x0 - 2 x1 + 0.5 x2 + 1}
 * plus Gaussian noise of deviation {@value #NOISE} (x3 is irrelevant); every sixth row is test.
 */
public final class LinearRegressionTable {
  public static final double NOISE = 0.1;

  private LinearRegressionTable() {}

  public static TableRef write(Path dir, int rows, long seed) throws IOException {
    Random random = new Random(seed);
    long[] ids = new long[rows];
    float[] values = new float[rows];
    String[] splits = new String[rows];
    float[][] features = new float[rows][];
    for (int i = 0; i < rows; i++) {
      float[] x = new float[4];
      for (int k = 0; k < 4; k++) {
        x[k] = random.nextFloat() * 2 - 1;
      }
      ids[i] = i;
      values[i] = (float) (3 * x[0] - 2 * x[1] + 0.5 * x[2] + 1 + NOISE * random.nextGaussian());
      splits[i] = i % 6 == 0 ? "test" : "train";
      features[i] = x;
    }
    String uri = dir.toUri().toString();
    long version =
        new DeltaTableWriter(
                uri,
                TableSchemas.VALUED_FEATURES,
                Map.of(
                    TableSchemas.FEATURE_NAMES_PROPERTY, "x0,x1,x2,x3",
                    TableSchemas.TASK_PROPERTY, "regression"))
            .newAppend()
            .add(
                Columns.of(rows)
                    .add("id", ids)
                    .add("label", values)
                    .add("split", splits)
                    .add("features", features))
            .commit();
    return TableRef.newBuilder().setUri(uri).setVersion(version).build();
  }
}
