package dev.keel.tables.registry;

import dev.keel.api.BuildInfo;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.PromoteModelRequest;
import dev.keel.api.v1.RegisterModelRequest;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.storage.checkpoint.CorruptCheckpointException;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableRows;
import dev.keel.tables.catalog.CatalogTables;
import dev.keel.tables.registry.ModelEvents.Event;
import io.delta.kernel.Snapshot;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and writes the model registry of one storage root: {@code _keel/models} plus the checkpoint
 * copies under {@code models/<name>/<version>/}. Safe for concurrent writers on any number of machines:
 * every commit for a name carries the Delta transaction id {@code keel-model:<name>}, so two writers of
 * one name conflict and the loser re-reads and tries again.
 */
public final class ModelRegistryTable {
  private static final Logger log = LoggerFactory.getLogger(ModelRegistryTable.class);

  public static final String TABLE = "models";
  public static final String MODELS_DIRECTORY = "models";
  public static final String CANDIDATE = "candidate";
  public static final String CHAMPION = "champion";
  public static final String ARCHIVED = "archived";
  public static final Set<String> STAGES = Set.of(CANDIDATE, CHAMPION, ARCHIVED);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,99}");
  private static final String TXN_APP_ID_PREFIX = "keel-model:";
  private static final int MAX_CONFLICTS = 20;

  private final Engine engine;
  private final StorageRoot storage;
  private final Clock clock;

  public ModelRegistryTable(Engine engine, StorageRoot storage, Clock clock) {
    this.engine = engine;
    this.storage = storage;
    this.clock = clock;
  }

  public ModelRegistryTable(StorageRoot storage) {
    this(DeltaTables.defaultEngine(), storage, Clock.systemUTC());
  }

  public String tableUri() {
    return DeltaTables.displayUri(storage.resolve(CatalogTables.DIRECTORY + "/" + TABLE));
  }

  /** Every version of every model, by name then version; empty before the first registration. */
  public List<ModelVersion> list() {
    return ModelEvents.fold(rows(latest()));
  }

  /** Every version of one model. */
  public List<ModelVersion> list(String name) {
    return list().stream().filter(v -> v.getName().equals(name)).toList();
  }

  /** @throws UnknownModelException naming what does not exist */
  public ModelVersion describe(String name, long version) {
    return find(list(), name, version);
  }

  /** The current champion of a name, if it has one. */
  public Optional<ModelVersion> champion(String name) {
    return list(name).stream().filter(v -> CHAMPION.equals(v.getStage())).findFirst();
  }

  /**
   * Registers the request's checkpoint as the next version of its name, stage {@code candidate}. A
   * request whose idempotency key the registry already holds returns that version and writes nothing.
   *
   * @throws UnknownModelException for a bad name or a missing checkpoint
   * @throws CorruptCheckpointException when the checkpoint is missing, partial or corrupt
   */
  public ModelVersion register(RegisterModelRequest request) {
    String name = checkName(request.getName());
    if (request.getCheckpoint().getUri().isEmpty()) {
      throw new UnknownModelException("model " + name + ": nothing to register (no checkpoint)");
    }
    String key = request.getIdempotencyKey().isEmpty()
        ? request.getRegisteredBy() + "/" + request.getCheckpoint().getUuid() : request.getIdempotencyKey();
    VerifiedCheckpoint source = open(request.getCheckpoint());
    for (int attempt = 1; ; attempt++) {
      Optional<Snapshot> snapshot = latest();
      List<Map<String, Object>> rows = rows(snapshot);
      Long existing = ModelEvents.versionOfKey(rows, name, key);
      if (existing != null) {
        log.info("model {} v{} already registered for {}; nothing written", name, existing, key);
        return find(ModelEvents.fold(rows), name, existing);
      }
      long version = ModelEvents.fold(rows).stream().filter(v -> v.getName().equals(name))
          .mapToLong(ModelVersion::getVersion).max().orElse(0) + 1;
      CheckpointRef copy = copy(source, name, version);
      ModelVersion registered = ModelVersion.newBuilder()
          .setName(name).setVersion(version).setStage(CANDIDATE)
          .setCheckpoint(copy)
          .setSourceCheckpointUri(request.getCheckpoint().getUri())
          .setConfig(request.getConfig())
          .putAllHparams(request.getHparams())
          .putAllMetrics(request.getCheckpoint().getMetricsMap())
          .putAllMetrics(request.getMetrics())
          .setData(request.getData())
          .setExperimentId(request.getExperimentId())
          .setTrialId(request.getTrialId())
          .setCodeVersion(BuildInfo.commit())
          .setCreatedMillis(clock.millis())
          .setRegisteredBy(request.getRegisteredBy())
          .build();
      if (commit(name, snapshot, List.of(Event.registered(registered, key)), attempt)) {
        log.info("registered model {} v{} from checkpoint {} ({})", name, version, request.getCheckpoint().getUri(), key);
        return describe(name, version);
      }
    }
  }

  /**
   * Moves a version to a stage. Promoting a champion archives the name's previous champion in the same
   * commit. Asking for the stage a version already has writes nothing.
   */
  public ModelVersion promote(PromoteModelRequest request) {
    String name = checkName(request.getModel().getName());
    String stage = request.getStage();
    if (!STAGES.contains(stage)) {
      throw new UnknownModelException("stage '" + stage + "' is not one of candidate|champion|archived");
    }
    for (int attempt = 1; ; attempt++) {
      Optional<Snapshot> snapshot = latest();
      List<ModelVersion> all = ModelEvents.fold(rows(snapshot));
      ModelVersion target = find(all, name, request.getModel().getVersion());
      if (target.getStage().equals(stage)) {
        return target;
      }
      long now = clock.millis();
      String reason = request.getReason().isEmpty() ? "promoted to " + stage : request.getReason();
      List<Event> events = new ArrayList<>();
      events.add(Event.stage(name, target.getVersion(), stage, now, reason));
      if (CHAMPION.equals(stage)) {
        all.stream().filter(v -> v.getName().equals(name) && CHAMPION.equals(v.getStage()))
            .forEach(old -> events.add(Event.stage(name, old.getVersion(), ARCHIVED, now,
                "replaced by v" + target.getVersion())));
      }
      if (commit(name, snapshot, events, attempt)) {
        log.info("model {} v{} is now {} ({})", name, target.getVersion(), stage, reason);
        return describe(name, target.getVersion());
      }
    }
  }

  /** True when committed; false when another writer of the name won the race (read again). */
  private boolean commit(String name, Optional<Snapshot> readAt, List<Event> events, int attempt) {
    long sequence = readAt.map(Snapshot::getVersion).orElse(-1L) + 1;
    DeltaTableWriter writer = new DeltaTableWriter(engine, tableUri(), ModelEvents.SCHEMA, ModelEvents.PROPERTIES);
    try {
      writer.newAppend().add(ModelEvents.columns(events, sequence)).transactionId(TXN_APP_ID_PREFIX + name, sequence)
          .commit();
      return true;
    } catch (ConcurrentTransactionException e) {
      if (attempt >= MAX_CONFLICTS) {
        throw new IllegalStateException("model " + name + ": " + attempt + " concurrent writers in a row won; try again", e);
      }
      log.info("model {}: another writer committed first; reading the registry again", name);
      return false;
    }
  }

  private static ModelVersion find(List<ModelVersion> all, String name, long version) {
    List<ModelVersion> ofName = all.stream().filter(v -> v.getName().equals(name)).toList();
    if (ofName.isEmpty()) {
      List<String> names = all.stream().map(ModelVersion::getName).distinct().toList();
      throw new UnknownModelException("no model named '" + name + "' in the registry"
          + (names.isEmpty() ? " (it is empty)" : " (models: " + String.join(", ", names) + ")"));
    }
    return ofName.stream().filter(v -> v.getVersion() == version).findFirst().orElseThrow(() -> new UnknownModelException(
        "model '" + name + "' has no version " + version + " (versions 1.." + ofName.get(ofName.size() - 1).getVersion() + ")"));
  }

  private static String checkName(String name) {
    if (!NAME.matcher(name).matches()) {
      throw new UnknownModelException("model name '" + name + "' must match " + NAME.pattern());
    }
    return name;
  }

  private Optional<Snapshot> latest() {
    return DeltaTables.latestSnapshot(engine, tableUri());
  }

  private List<Map<String, Object>> rows(Optional<Snapshot> snapshot) {
    return snapshot.map(s -> TableRows.read(engine, s)).orElse(List.of());
  }

  private static VerifiedCheckpoint open(CheckpointRef ref) {
    try {
      return VerifiedCheckpoint.open(ref);
    } catch (IOException e) {
      throw new UncheckedIOException("checkpoint " + ref.getUri() + ": " + e.getMessage(), e);
    }
  }

  /** The registry's own copy, so checkpoint GC of the source experiment never touches a registered model. */
  private CheckpointRef copy(VerifiedCheckpoint source, String name, long version) {
    CheckpointStorage models = CheckpointStorage.forRoot(storage.resolve(MODELS_DIRECTORY));
    try {
      return source.copyTo(models, name, Long.toString(version));
    } catch (IOException e) {
      throw new UncheckedIOException("copying checkpoint " + source.uri() + " into the registry: " + e.getMessage(), e);
    }
  }
}
