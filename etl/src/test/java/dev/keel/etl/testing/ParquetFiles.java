package dev.keel.etl.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.IntFunction;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * Writes real Fashion-MNIST rows as Parquet: name (string), f0..f15 (double), label (string),
 * [split].
 */
public final class ParquetFiles {
  private ParquetFiles() {}

  public static MessageType schema(boolean withSplit) {
    StringBuilder sb = new StringBuilder("message row { optional binary name (UTF8);");
    for (int k = 0; k < 16; k++) {
      sb.append(" required double f").append(k).append(';');
    }
    sb.append(" optional binary label (UTF8);");
    if (withSplit) {
      sb.append(" required binary split (UTF8);");
    }
    return MessageTypeParser.parseMessageType(sb.append(" }").toString());
  }

  /**
   * Rows {@code from..to-1}; {@code splitOf} null writes no split column; a null label for ids in
   * {@code noLabel}.
   */
  public static void write(
      Path file, int from, int to, IntFunction<String> splitOf, Set<Integer> noLabel)
      throws IOException {
    write(
        file,
        from,
        to,
        splitOf,
        i ->
            noLabel.contains(i)
                ? null
                : RealData.className(RealData.label(i)).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Rows {@code from..to-1} whose label column holds {@code labelBytes} (no label when null), as
   * written.
   */
  public static void write(
      Path file, int from, int to, IntFunction<String> splitOf, IntFunction<byte[]> labelBytes)
      throws IOException {
    MessageType schema = schema(splitOf != null);
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    Files.createDirectories(file.getParent());
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema).build()) {
      for (int i = from; i < to; i++) {
        Group g = f.newGroup().append("name", "img-" + i);
        float[] x = RealData.features(i);
        for (int k = 0; k < 16; k++) {
          g.append("f" + k, (double) x[k]);
        }
        byte[] label = labelBytes.apply(i);
        if (label != null) {
          g.append("label", Binary.fromConstantByteArray(label));
        }
        if (splitOf != null) {
          g.append("split", splitOf.apply(i));
        }
        w.write(g);
      }
    }
  }
}
