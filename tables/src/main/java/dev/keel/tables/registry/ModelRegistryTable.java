package dev.keel.tables.registry;

import dev.keel.api.BuildInfo;
import dev.keel.api.config.EnumNames;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.ModelStage;
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
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and writes the model registry of one storage root: {@code _keel/models} plus the checkpoint
 * copies under {@code models/<name>/<version>/}. Safe for concurrent writers on any number of
 * machines: every commit for a name carries the Delta transaction id {@code keel-model:<name>}, so
 * two writers of one name conflict and the loser re-reads and tries again.
 */
public final class ModelRegistryTable {
  private static final Logger log = LoggerFactory.getLogger(ModelRegistryTable.class);

  public static final String TABLE = "models";
  public static final String MODELS_DIRECTORY = "models";
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

  /**
   * @throws UnknownModelException naming what does not exist
   */
  public ModelVersion describe(String name, long version) {
    return find(list(), name, version);
  }

  /** The current champion of a name, if it has one. */
  public Optional<ModelVersion> champion(String name) {
    return list(name).stream().filter(v -> v.getStage() == ModelStage.champion).findFirst();
  }

  /**
   * Registers the request's checkpoint as the next version of its name, stage {@code candidate}. A
   * request whose idempotency key the registry already holds returns that version and writes
   * nothing.
   *
   * @throws UnknownModelException for a bad name or a missing checkpoint
   * @throws CorruptCheckpointException when the checkpoint is missing, partial or corrupt
   */
  public ModelVersion register(RegisterModelRequest request) {
    String name = checkName(request.getName());
    if (request.getCheckpoint().getUri().isEmpty()) {
      throw new UnknownModelException("model " + name + ": nothing to register (no checkpoint)");
    }
    String key =
        request.getIdempotencyKey().isEmpty()
            ? request.getRegisteredBy() + "/" + request.getCheckpoint().getUuid()
            : request.getIdempotencyKey();
    VerifiedCheckpoint source = open(request.getCheckpoint());
    for (int attempt = 1; ; attempt++) {
      Optional<Snapshot> snapshot = latest();
      List<Map<String, Object>> rows = rows(snapshot);
      Long existing = ModelEvents.versionOfKey(rows, name, key);
      if (existing != null) {
        log.info("model {} v{} already registered for {}; nothing written", name, existing, key);
        return find(ModelEvents.fold(rows), name, existing);
      }
      long version =
          ModelEvents.fold(rows).stream()
                  .filter(v -> v.getName().equals(name))
                  .mapToLong(ModelVersion::getVersion)
                  .max()
                  .orElse(0)
              + 1;
      CheckpointRef copy = copy(source, name, version);
      ModelVersion registered =
          ModelVersion.newBuilder()
              .setName(name)
              .setVersion(version)
              .setStage(ModelStage.candidate)
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
              .setSubmittedBy(request.getSubmittedBy())
              .setModel(source.metadata().model())
              .build();
      if (request.hasWarmStartedFrom()) {
        registered =
            registered.toBuilder().setWarmStartedFrom(request.getWarmStartedFrom()).build();
      }
      if (commit(name, snapshot, List.of(Event.registered(registered, key)), attempt)) {
        log.info(
            "registered model {} v{} from checkpoint {} ({})",
            name,
            version,
            request.getCheckpoint().getUri(),
            key);
        return describe(name, version);
      }
    }
  }

  /**
   * Moves a version to a stage. Promoting a champion archives the name's previous champion in the
   * same commit. Asking for the stage a version already has writes nothing.
   */
  public ModelVersion promote(PromoteModelRequest request) {
    String name = checkName(request.getModel().getName());
    ModelStage stage = request.getStage();
    if (stage == ModelStage.MODEL_STAGE_UNSPECIFIED || stage == ModelStage.UNRECOGNIZED) {
      throw new UnknownModelException(
          "stage "
              + request.getStageValue()
              + " is not one of "
              + EnumNames.expected(ModelStage.getDescriptor()));
    }
    for (int attempt = 1; ; attempt++) {
      Optional<Snapshot> snapshot = latest();
      List<ModelVersion> all = ModelEvents.fold(rows(snapshot));
      ModelVersion target = find(all, name, request.getModel().getVersion());
      if (target.getStage() == stage) {
        return target;
      }
      String reason = request.getReason().isEmpty() ? "promoted to " + stage : request.getReason();
      List<Event> events =
          stageEvents(all, target, stage, clock.millis(), reason, request.getWho());
      if (commit(name, snapshot, events, attempt)) {
        log.info("model {} v{} is now {} ({})", name, target.getVersion(), stage, reason);
        return describe(name, target.getVersion());
      }
    }
  }

  /**
   * Records a champion/challenger comparison; a {@code promoted} decision makes the challenger
   * champion (archiving the previous one) in the same commit. Recording it again writes nothing.
   */
  public ModelVersion recordComparison(Comparison comparison) {
    String name = checkName(comparison.getChallenger().getName());
    long version = comparison.getChallenger().getVersion();
    boolean promote = comparison.getDecision() == Comparison.Decision.promoted;
    if (!promote && comparison.getDecision() != Comparison.Decision.kept_champion) {
      throw new UnknownModelException(
          "decision "
              + comparison.getDecisionValue()
              + " is not one of "
              + EnumNames.expected(Comparison.Decision.getDescriptor()));
    }
    for (int attempt = 1; ; attempt++) {
      Optional<Snapshot> snapshot = latest();
      List<Map<String, Object>> rows = rows(snapshot);
      List<ModelVersion> all = ModelEvents.fold(rows);
      ModelVersion challenger = find(all, name, version);
      if (ModelEvents.compared(rows, name, version, comparison.getDecidedBy())) {
        return challenger;
      }
      String reason = describe(comparison);
      List<Event> events = new ArrayList<>();
      events.add(
          Event.compared(
              comparison, promote ? ModelStage.champion : challenger.getStage(), reason));
      if (promote && challenger.getStage() != ModelStage.champion) {
        events.addAll(
            stageEvents(
                all, challenger, ModelStage.champion, comparison.getTimeMillis(), reason, ""));
      }
      if (commit(name, snapshot, events, attempt)) {
        log.info("model {} v{}: {}", name, version, reason);
        return describe(name, version);
      }
    }
  }

  /**
   * One line for the stage history, e.g. "accuracy 0.9120 vs champion v2 0.9050 on fashion_mnist v4
   * test: promoted".
   */
  static String describe(Comparison c) {
    String on =
        " on "
            + c.getData().getUri().substring(c.getData().getUri().lastIndexOf('/') + 1)
            + " v"
            + c.getData().getVersion()
            + " "
            + c.getSplit();
    String versus =
        c.hasChampion() && c.hasChampionValue()
            ? String.format(
                Locale.ROOT,
                " vs champion v%d %.4f",
                c.getChampion().getVersion(),
                c.getChampionValue())
            : " (no champion yet)";
    return String.format(
        Locale.ROOT,
        "%s %.4f%s%s: %s",
        c.getMetric(),
        c.getChallengerValue(),
        versus,
        on,
        c.getDecision().name().replace('_', ' '));
  }

  /** The target's stage change, and for a new champion the previous champion's archiving. */
  private static List<Event> stageEvents(
      List<ModelVersion> all,
      ModelVersion target,
      ModelStage stage,
      long now,
      String reason,
      String who) {
    List<Event> events = new ArrayList<>();
    events.add(Event.stage(target.getName(), target.getVersion(), stage, now, reason, who));
    if (stage == ModelStage.champion) {
      all.stream()
          .filter(
              v ->
                  v.getName().equals(target.getName())
                      && v.getStage() == ModelStage.champion
                      && v.getVersion() != target.getVersion())
          .forEach(
              old ->
                  events.add(
                      Event.stage(
                          old.getName(),
                          old.getVersion(),
                          ModelStage.archived,
                          now,
                          "replaced by v" + target.getVersion(),
                          who)));
    }
    return events;
  }

  /** True when committed; false when another writer of the name won the race (read again). */
  private boolean commit(String name, Optional<Snapshot> readAt, List<Event> events, int attempt) {
    long sequence = readAt.map(Snapshot::getVersion).orElse(-1L) + 1;
    DeltaTableWriter writer =
        new DeltaTableWriter(engine, tableUri(), ModelEvents.SCHEMA, ModelEvents.PROPERTIES);
    try {
      writer
          .newAppend()
          .add(ModelEvents.columns(events, sequence))
          .transactionId(TXN_APP_ID_PREFIX + name, sequence)
          .commit();
      return true;
    } catch (ConcurrentTransactionException e) {
      if (attempt >= MAX_CONFLICTS) {
        throw new IllegalStateException(
            "model " + name + ": " + attempt + " concurrent writers in a row won; try again", e);
      }
      log.info("model {}: another writer committed first; reading the registry again", name);
      return false;
    }
  }

  private static ModelVersion find(List<ModelVersion> all, String name, long version) {
    List<ModelVersion> ofName = all.stream().filter(v -> v.getName().equals(name)).toList();
    if (ofName.isEmpty()) {
      List<String> names = all.stream().map(ModelVersion::getName).distinct().toList();
      throw new UnknownModelException(
          "no model named '"
              + name
              + "' in the registry"
              + (names.isEmpty()
                  ? " (it is empty)"
                  : " (models: " + String.join(", ", names) + ")"));
    }
    return ofName.stream()
        .filter(v -> v.getVersion() == version)
        .findFirst()
        .orElseThrow(
            () ->
                new UnknownModelException(
                    "model '"
                        + name
                        + "' has no version "
                        + version
                        + " (versions 1.."
                        + ofName.get(ofName.size() - 1).getVersion()
                        + ")"));
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

  /**
   * The registry's own copy, so checkpoint GC of the source experiment never touches a registered
   * model.
   */
  private CheckpointRef copy(VerifiedCheckpoint source, String name, long version) {
    CheckpointStorage models = CheckpointStorage.forRoot(storage.resolve(MODELS_DIRECTORY));
    try {
      return source.copyTo(models, name, Long.toString(version));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "copying checkpoint " + source.uri() + " into the registry: " + e.getMessage(), e);
    }
  }
}
