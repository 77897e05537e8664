package dev.keel.etl;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.SourceEncoding;
import dev.keel.api.config.SourceFormat;
import dev.keel.api.v1.DataSource;
import dev.keel.etl.source.SourceFiles;
import dev.keel.etl.tabular.CsvSource;
import dev.keel.etl.tabular.ParquetSource;
import dev.keel.etl.tabular.SourceText;
import dev.keel.etl.tabular.TabularRows;
import dev.keel.storage.S3Clients;
import dev.keel.storage.S3Uri;
import dev.keel.storage.StorageFailures;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The checks of a data source that need I/O but are cheap, done at submission ({@code keel
 * validate}, {@code keel submit}, REST) so that a wrong path or column is refused before any
 * workflow starts: the source exists (a local path or {@code file:} URI, or at least one S3 object
 * under the URI), for a local CSV source that its text is in {@code source.encoding}, and for a
 * local CSV or Parquet source the label and feature columns are in the first file's header or
 * footer. Messages name the URI as the user wrote it.
 */
public final class SourceCheck {
  private SourceCheck() {}

  public static List<ConfigProblem> problems(DataSource source) {
    List<ConfigProblem> out = new ArrayList<>();
    String uri = source.getUri().strip();
    if (uri.isEmpty()) {
      if (SourceFormat.of(source.getFormat()).filter(f -> !f.needsUri()).isPresent()) {
        uri = IngestActivitiesImpl.DEFAULT_FASHION_MNIST_DIR;
      } else {
        out.add(
            new ConfigProblem(
                "source.uri", "required (a local path, a file: URI or s3://bucket/prefix)"));
        return out;
      }
    }
    try {
      if (S3Uri.isS3(uri)) {
        if (SourceFiles.s3Keys(S3Clients.fromEnvironment(), S3Uri.parse(uri)).isEmpty()) {
          out.add(
              new ConfigProblem(
                  "source.uri", uri + " does not exist (no S3 object at or under it)"));
        }
        return out; // columns are checked by the ingest activity, which downloads the files
      }
      Path local = SourceFiles.localPath(uri);
      if (!Files.exists(local)) {
        out.add(new ConfigProblem("source.uri", uri + " does not exist"));
        return out;
      }
      Optional<SourceFormat> format = SourceFormat.of(source.getFormat());
      if (format.isPresent() && format.get().tabular()) {
        Path first = firstFile(local);
        if (first == null) {
          out.add(new ConfigProblem("source.uri", uri + " holds no files"));
          return out;
        }
        Optional<Charset> charset = SourceEncoding.charset(source.getEncoding());
        if (charset.isEmpty()) {
          out.add(
              new ConfigProblem(
                  SourceEncoding.FIELD, SourceEncoding.unknown(source.getEncoding())));
          return out;
        }
        if (format.get() == SourceFormat.CSV
            && encodingProblem(source, local, charset.get(), out)) {
          return out; // column names read in the wrong encoding would only add confusing problems
        }
        List<String> columns =
            format.get() == SourceFormat.CSV
                ? CsvSource.header(first, charset.get())
                : ParquetSource.columns(first);
        String label = source.getLabelColumn();
        // never quote the header: it is the file's content, and a file that is no CSV would show
        // its first line
        if (!label.isBlank() && !columns.contains(label)) {
          out.add(
              new ConfigProblem(
                  "source.label_column",
                  "'"
                      + label
                      + "' is not a column of "
                      + first
                      + " ("
                      + TabularRows.headerSays(columns)
                      + ")"));
        }
        for (int i = 0; i < source.getLabelColumnsCount(); i++) {
          String c = source.getLabelColumns(i);
          if (!c.isBlank() && !columns.contains(c)) {
            out.add(
                new ConfigProblem(
                    "source.label_columns[" + i + "]",
                    "'"
                        + c
                        + "' is not a column of "
                        + first
                        + " ("
                        + TabularRows.headerSays(columns)
                        + ")"));
          }
        }
        for (String f : source.getFeatureColumnsList()) {
          if (!columns.contains(f)) {
            out.add(
                new ConfigProblem(
                    "source.feature_columns",
                    "'"
                        + f
                        + "' is not a column of "
                        + first
                        + " ("
                        + TabularRows.headerSays(columns)
                        + ")"));
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

  /**
   * Whether a local CSV source's text is not in its encoding, adding the problem naming {@value
   * SourceEncoding#FIELD}, the file and the line. Reads the files in the ingest's order, {@value
   * #ENCODING_CHECK_BYTES} bytes at most (the ingest checks every byte); under {@code
   * on_bad_record: skip} only a header line counts, since the ingest skips any other line that is
   * not text in the encoding (naming it in the result).
   */
  private static boolean encodingProblem(
      DataSource source, Path local, Charset charset, List<ConfigProblem> out) throws IOException {
    boolean skip = source.getOnBadRecord() == DataSource.OnBadRecord.skip;
    long budget = ENCODING_CHECK_BYTES;
    for (Path file : files(local)) {
      if (budget <= 0) {
        break;
      }
      Optional<SourceText.Flaw> flaw =
          SourceText.firstFlaw(file, charset, source.getEncoding(), skip ? 1 : budget);
      if (flaw.isPresent() && (!skip || flaw.get().line() == 1)) {
        out.add(
            new ConfigProblem(
                SourceEncoding.FIELD,
                name(local, file) + ":" + flaw.get().line() + ": " + flaw.get().what()));
        return true;
      }
      budget -= Files.size(file);
    }
    return false;
  }

  /** At submission, at most this many bytes of a CSV source are checked against its encoding. */
  static final long ENCODING_CHECK_BYTES = 256L << 20;

  /** A file as the ingest names it: its path relative to the source directory, or its name. */
  private static String name(Path local, Path file) {
    return Files.isRegularFile(local)
        ? file.getFileName().toString()
        : local.relativize(file).toString().replace('\\', '/');
  }

  /** The source's data files in path order (as the ingest reads them). */
  private static List<Path> files(Path local) throws IOException {
    if (Files.isRegularFile(local)) {
      return List.of(local);
    }
    try (Stream<Path> s = Files.walk(local)) {
      return s.filter(Files::isRegularFile)
          .filter(p -> !hidden(local.relativize(p)))
          .sorted(
              (a, b) ->
                  local
                      .relativize(a)
                      .toString()
                      .replace('\\', '/')
                      .compareTo(local.relativize(b).toString().replace('\\', '/')))
          .toList();
    }
  }

  /** The source's first data file in path order (as the ingest reads them), or null. */
  private static Path firstFile(Path local) throws IOException {
    return files(local).stream().findFirst().orElse(null);
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
