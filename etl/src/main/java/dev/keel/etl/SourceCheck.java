package dev.keel.etl;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.v1.DataSource;
import dev.keel.etl.source.SourceFiles;
import dev.keel.etl.tabular.CsvSource;
import dev.keel.etl.tabular.ParquetSource;
import dev.keel.storage.S3Clients;
import dev.keel.storage.S3Uri;
import dev.keel.storage.StorageFailures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The checks of a data source that need I/O but are cheap, done at submission ({@code keel
 * validate}, {@code keel submit}, REST) so that a wrong path or column is refused before any
 * workflow starts: the source exists (a local path or {@code file:} URI, or at least one S3 object
 * under the URI), and for a local CSV or Parquet source the label and feature columns are in the
 * first file's header or footer. Messages name the URI as the user wrote it.
 */
public final class SourceCheck {
  private SourceCheck() {}

  public static List<ConfigProblem> problems(DataSource source) {
    List<ConfigProblem> out = new ArrayList<>();
    String uri = source.getUri().strip();
    if (uri.isEmpty()) {
      if (source.getFormat().equals(IngestActivitiesImpl.FORMAT_FASHION_MNIST)) {
        uri = IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR;
      } else {
        out.add(new ConfigProblem("source.uri", "required (a local path, a file: URI or s3://bucket/prefix)"));
        return out;
      }
    }
    try {
      if (S3Uri.isS3(uri)) {
        if (SourceFiles.s3Keys(S3Clients.fromEnvironment(), S3Uri.parse(uri)).isEmpty()) {
          out.add(new ConfigProblem("source.uri", uri + " does not exist (no S3 object at or under it)"));
        }
        return out; // columns are checked by the ingest activity, which downloads the files
      }
      Path local = SourceFiles.localPath(uri);
      if (!Files.exists(local)) {
        out.add(new ConfigProblem("source.uri", uri + " does not exist"));
        return out;
      }
      String format = source.getFormat();
      if (format.equals(IngestActivitiesImpl.FORMAT_CSV) || format.equals(IngestActivitiesImpl.FORMAT_PARQUET)) {
        Path first = firstFile(local);
        if (first == null) {
          out.add(new ConfigProblem("source.uri", uri + " holds no files"));
          return out;
        }
        List<String> columns = format.equals(IngestActivitiesImpl.FORMAT_CSV)
            ? CsvSource.header(first) : ParquetSource.columns(first);
        String label = source.getLabelColumn();
        if (!label.isBlank() && !columns.contains(label)) {
          out.add(new ConfigProblem("source.label_column", "'" + label + "' is not a column of " + first
              + " (columns: " + String.join(", ", columns) + ")"));
        }
        for (String f : source.getFeatureColumnsList()) {
          if (!columns.contains(f)) {
            out.add(new ConfigProblem("source.feature_columns", "'" + f + "' is not a column of " + first
                + " (columns: " + String.join(", ", columns) + ")"));
          }
        }
      }
    } catch (IllegalArgumentException e) {
      out.add(new ConfigProblem("source.uri", e.getMessage()));
    } catch (IOException | RuntimeException e) {
      String why = StorageFailures.problem(e).orElse(e.getMessage());
      out.add(new ConfigProblem("source.uri", uri + " cannot be read: " + why));
    }
    return out;
  }

  /** The source's first data file in path order (as the ingest reads them), or null. */
  private static Path firstFile(Path local) throws IOException {
    if (Files.isRegularFile(local)) {
      return local;
    }
    try (Stream<Path> s = Files.walk(local)) {
      return s.filter(Files::isRegularFile)
          .filter(p -> !hidden(local.relativize(p)))
          .min((a, b) -> local.relativize(a).toString().replace('\\', '/')
              .compareTo(local.relativize(b).toString().replace('\\', '/')))
          .orElse(null);
    }
  }

  private static boolean hidden(Path relative) {
    for (Path part : relative) {
      String n = part.toString();
      if (n.startsWith(".") || n.startsWith("_")) {
        return true;
      }
    }
    return false;
  }
}
