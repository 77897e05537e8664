package dev.keel.etl.history;

import dev.keel.storage.S3Clients;
import dev.keel.storage.S3Uri;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.catalog.Paging;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;
import software.amazon.awssdk.services.s3.model.CommonPrefix;

/**
 * The data tables of a storage root ({@code <root>/tables/<name>}, each a Delta table), by name,
 * with their latest version and when it was committed: what {@code keel data list} and {@code GET
 * /api/v1/data} show.
 */
public final class DataTableList {
  /** One table and its latest version. */
  public record Table(String name, String uri, long latestVersion, Instant updated) {}

  /** One page and how many tables there are in all. */
  public record Page(List<Table> tables, int total, int offset, int limit) {}

  private DataTableList() {}

  /**
   * @throws IllegalArgumentException for bad paging, naming the parameter
   */
  public static Page page(StorageRoot root, int offset, int limit) {
    Paging.check(offset, limit);
    List<String> names = new ArrayList<>(names(root));
    List<Table> tables = new ArrayList<>();
    Engine engine = DeltaTables.defaultEngine();
    for (String name : Paging.slice(names, offset, limit)) {
      String uri = root.table(name);
      Optional<Snapshot> s = DeltaTables.latestSnapshot(engine, uri);
      s.ifPresent(
          snapshot ->
              tables.add(
                  new Table(
                      name,
                      DeltaTables.displayUri(uri),
                      snapshot.getVersion(),
                      Instant.ofEpochMilli(snapshot.getTimestamp(engine)))));
    }
    return new Page(tables, names.size(), offset, limit);
  }

  /** The names of the directories under {@code <root>/tables/} that hold a Delta log, sorted. */
  static NavigableSet<String> names(StorageRoot root) {
    NavigableSet<String> out = new TreeSet<>();
    if (root.isS3()) {
      S3Uri tables = S3Uri.of(root.uri()).resolve("tables");
      S3Clients.fromEnvironment()
          .listObjectsV2Paginator(
              b -> b.bucket(tables.bucket()).prefix(tables.prefix()).delimiter("/"))
          .commonPrefixes()
          .stream()
          .map(CommonPrefix::prefix)
          .map(p -> p.substring(tables.prefix().length(), p.length() - 1))
          .filter(name -> !name.isEmpty())
          .forEach(out::add);
      return out;
    }
    Path dir = root.localPath().resolve("tables");
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      entries
          .filter(p -> Files.isDirectory(p.resolve("_delta_log")))
          .forEach(p -> out.add(p.getFileName().toString()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
    return out;
  }
}
