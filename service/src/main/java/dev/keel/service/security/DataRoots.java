package dev.keel.service.security;

import dev.keel.api.config.ConfigProblem;
import dev.keel.api.model.ModelFileVariants;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.storage.S3Uri;
import dev.keel.storage.StorageRoot;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The places a server's requests may name: its storage root and the data roots its operator
 * declared ({@code keel serve --data-root DIR|s3://bucket/prefix}, repeatable; {@code keel dev}
 * adds the demo's data directory). Every path or URI a request names (a source, a table, a
 * checkpoint directory, a TorchScript model file) must resolve inside one of them after {@code ..},
 * symbolic links and {@code file:} spellings are resolved; a table name ({@code fashion_mnist})
 * resolves under the storage root's {@code tables/}. Anything else is refused naming the field and
 * the roots, with the same words whether the place exists or not, and before anything reads it.
 */
public final class DataRoots {
  /** A table name: one path segment, not starting with a dot. */
  public static final String TABLE_NAME = "[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}";

  private sealed interface Root permits Local, Bucket {}

  private record Local(Path real) implements Root {
    @Override
    public String toString() {
      return real.toString();
    }
  }

  private record Bucket(String bucket, String prefix) implements Root {
    @Override
    public String toString() {
      return "s3://" + bucket + "/" + prefix;
    }
  }

  private final StorageRoot storage;
  private final List<Root> roots;

  private DataRoots(StorageRoot storage, List<Root> roots) {
    this.storage = storage;
    this.roots = List.copyOf(roots);
  }

  /** Only the storage root. */
  public static DataRoots of(StorageRoot storage) {
    return of(storage, List.of());
  }

  /**
   * @param dataRoots local directories (plain paths or {@code file:} URIs) and {@code
   *     s3://bucket/prefix} URIs
   * @throws IllegalArgumentException naming a data root that is neither
   */
  public static DataRoots of(StorageRoot storage, List<String> dataRoots) {
    List<Root> roots = new ArrayList<>();
    roots.add(root(storage.uri().toString()));
    for (String r : dataRoots) {
      roots.add(root(r));
    }
    return new DataRoots(storage, roots);
  }

  public StorageRoot storage() {
    return storage;
  }

  /** The roots as messages name them. */
  public String describe() {
    return roots.stream().map(Root::toString).collect(Collectors.joining(", "));
  }

  /** Every place a pipeline request names, each problem with its field path. */
  public List<ConfigProblem> problems(PipelineRequest r) {
    List<ConfigProblem> out = new ArrayList<>();
    if (r.hasSource() && !r.getSource().getUri().isBlank()) {
      location("source.uri", r.getSource().getUri()).ifPresent(out::add);
    }
    table("target_table", r.getTargetTable()).ifPresent(out::add);
    if (r.getReuse().hasTable()) {
      table("reuse.table.table", r.getReuse().getTable().getTable()).ifPresent(out::add);
    }
    table("inference.predictions_table", r.getInference().getPredictionsTable())
        .ifPresent(out::add);
    if (r.hasExperiment()) {
      out.addAll(problems(r.getExperiment(), "experiment."));
    }
    return out;
  }

  /**
   * Every place an experiment config names: its table, its checkpoint directory and its TorchScript
   * model file.
   */
  public List<ConfigProblem> problems(ExperimentConfig c, String prefix) {
    List<ConfigProblem> out = new ArrayList<>();
    table(prefix + "data.table", c.getData().getTable()).ifPresent(out::add);
    String checkpoints = c.getCheckpointStorage().getStoragePath();
    if (!checkpoints.isBlank()) {
      location(prefix + "checkpoint_storage.storage_path", checkpoints).ifPresent(out::add);
    }
    modelFile(prefix + "model.torchscript", c).ifPresent(out::add);
    return out;
  }

  /**
   * A {@code model.torchscript} location. A template's files are not known before its trials fill
   * it, so its directory (the text before the first brace, up to its last slash) must lie inside a
   * root, and so must each file its placeholders' listed values name ({@link ModelFileVariants}: a
   * value may name a symbolic link).
   */
  private Optional<ConfigProblem> modelFile(String field, ExperimentConfig c) {
    String model = c.getModel().getTorchscript().strip();
    if (model.isEmpty()) {
      return Optional.empty();
    }
    int brace = model.indexOf('{');
    if (brace < 0) {
      return location(field, model);
    }
    String head = model.substring(0, brace);
    String directory = head.substring(0, head.lastIndexOf('/') + 1);
    Optional<ConfigProblem> outside = location(field, directory.isEmpty() ? "." : directory);
    if (outside.isPresent()) {
      return Optional.of(
          new ConfigProblem(field, "the directory of '" + model + "': " + outside.get().message()));
    }
    for (ModelFileVariants.Variant v : ModelFileVariants.of(c).orElse(List.of())) {
      if (v.file().isPresent()) {
        Optional<ConfigProblem> p = location(field, v.file().get());
        if (p.isPresent()) {
          return Optional.of(
              new ConfigProblem(
                  field, "'" + model + "' with " + v.describe() + " names " + p.get().message()));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * A table as a request names it: a name under the storage root, or a path or URI inside a root.
   * Blank is no problem here.
   */
  public Optional<ConfigProblem> table(String field, String nameOrUri) {
    String t = nameOrUri.strip();
    if (t.isEmpty()) {
      return Optional.empty();
    }
    if (!t.contains("/") && !t.contains(":") && !t.contains("\\")) {
      return t.matches(TABLE_NAME)
          ? Optional.empty()
          : Optional.of(
              new ConfigProblem(
                  field,
                  "'"
                      + t
                      + "' is not a table name (letters, digits, '_', '.' and '-', not starting with '.') or a URI"));
    }
    return location(field, t);
  }

  /** A path or URI that must lie inside a root. */
  public Optional<ConfigProblem> location(String field, String location) {
    String l = location.strip();
    try {
      if (S3Uri.isS3(l)) {
        S3Uri s3 = S3Uri.parse(l);
        String key = normalizedKey(s3.key());
        for (Root r : roots) {
          if (r instanceof Bucket b
              && b.bucket().equals(s3.bucket())
              && (b.prefix().isEmpty()
                  || key.equals(b.prefix())
                  || key.startsWith(b.prefix() + "/"))) {
            return Optional.empty();
          }
        }
        return outside(field, l);
      }
      if (l.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*") && !l.startsWith("file:")) {
        return Optional.of(
            new ConfigProblem(
                field,
                "'"
                    + l
                    + "' has a scheme this server does not read (use a path,"
                    + " a file: URI or s3://bucket/prefix inside "
                    + describe()
                    + ")"));
      }
      Path real = real(localPath(l));
      for (Root r : roots) {
        if (r instanceof Local local && real.startsWith(local.real())) {
          return Optional.empty();
        }
      }
      return outside(field, l);
    } catch (IllegalArgumentException | IOException | SecurityException e) {
      return Optional.of(
          new ConfigProblem(
              field, "'" + l + "' is not a path or URI this server can use inside " + describe()));
    }
  }

  private Optional<ConfigProblem> outside(String field, String location) {
    return Optional.of(
        new ConfigProblem(
            field,
            "'"
                + location
                + "' is outside this server's data roots ("
                + describe()
                + "); an operator can add one with keel serve --data-root"));
  }

  private static Root root(String location) {
    String l = location.strip();
    if (S3Uri.isS3(l)) {
      S3Uri s3 = S3Uri.parse(l);
      return new Bucket(s3.bucket(), normalizedKey(s3.key()));
    }
    try {
      return new Local(real(localPath(l)));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "data root '" + location + "' is neither a local directory nor s3://bucket/prefix");
    }
  }

  private static Path localPath(String l) {
    if (l.startsWith("file:")) {
      return Path.of(URI.create(l)); // refuses file://host/... and other authorities
    }
    return Path.of(l);
  }

  /**
   * The place itself, symbolic links resolved: the nearest ancestor that exists is made real, the
   * rest (which a request may create) is appended after {@code ..} and {@code .} were resolved, so
   * no link or dot leads out.
   */
  private static Path real(Path path) throws IOException {
    // not normalized first: the system resolves "link/.." through the link, and so must this
    Path p = path.toAbsolutePath();
    Path existing = p;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    if (existing == null) {
      return p.normalize();
    }
    // a dangling link throws here: refused, since what it names could be made later
    return existing.toRealPath().resolve(existing.relativize(p)).normalize();
  }

  /**
   * An S3 key without empty segments. Keys with {@code .} or {@code ..} segments are refused: S3
   * keeps them literally while S3A's paths resolve them, so the two would not name the same place.
   */
  private static String normalizedKey(String key) {
    List<String> out = new ArrayList<>();
    for (String segment : key.split("/")) {
      if (segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException("'" + segment + "' in an S3 key");
      }
      if (!segment.isEmpty()) {
        out.add(segment);
      }
    }
    return String.join("/", out);
  }
}
