package dev.keel.tables.registry;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.config.EnumNames;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.StageChange;
import dev.keel.tables.Columns;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of {@code _keel/models}: one {@code registered} row per version (the whole {@link
 * ModelVersion} as JSON plus the columns people filter on) and one {@code stage} row per stage
 * change. {@code sequence} orders the events of one name: writers of a name are serialised by a
 * Delta transaction id per name, so it strictly increases.
 */
final class ModelEvents {
  static final String REGISTERED = "registered";
  static final String STAGE = "stage";
  static final String COMPARED = "compared";

  static final StructType SCHEMA =
      new StructType()
          .add("name", StringType.STRING, false)
          .add("version", LongType.LONG, false)
          .add("event", StringType.STRING, false)
          .add("stage", StringType.STRING, false)
          .add("sequence", LongType.LONG, false)
          .add("time", TimestampType.TIMESTAMP, false)
          .add("idempotency_key", StringType.STRING, true)
          .add("checkpoint_uri", StringType.STRING, true)
          .add("data_table", StringType.STRING, true)
          .add("data_version", LongType.LONG, true)
          .add("experiment_id", StringType.STRING, true)
          .add("trial_id", StringType.STRING, true)
          .add("code_version", StringType.STRING, true)
          .add("reason", StringType.STRING, true)
          .add("model_json", StringType.STRING, true)
          .add("comparison_json", StringType.STRING, true);

  /** Statistics for the columns before the JSON. */
  static final Map<String, String> PROPERTIES = Map.of("delta.dataSkippingNumIndexedCols", "14");

  /** One event to append. */
  record Event(
      String name,
      long version,
      String event,
      ModelStage stage,
      long timeMillis,
      String idempotencyKey,
      String reason,
      ModelVersion registered,
      Comparison comparison,
      String who) {

    static Event registered(ModelVersion v, String idempotencyKey) {
      return new Event(
          v.getName(),
          v.getVersion(),
          REGISTERED,
          v.getStage(),
          v.getCreatedMillis(),
          idempotencyKey,
          null,
          v.toBuilder().clearHistory().clearComparisons().build(),
          null,
          "");
    }

    /**
     * @param who who asked, kept in the row's JSON column as its {@link StageChange}; empty for
     *     none
     */
    static Event stage(
        String name, long version, ModelStage stage, long timeMillis, String reason, String who) {
      return new Event(name, version, STAGE, stage, timeMillis, null, reason, null, null, who);
    }

    /** Keyed by challenger and decider: the same decision recorded twice is one. */
    static Event compared(Comparison c, ModelStage stage, String reason) {
      return new Event(
          c.getChallenger().getName(),
          c.getChallenger().getVersion(),
          COMPARED,
          stage,
          c.getTimeMillis(),
          c.getDecidedBy(),
          reason,
          null,
          c,
          "");
    }
  }

  private ModelEvents() {}

  static Columns columns(List<Event> events, long sequence) {
    int n = events.size();
    String[] name = new String[n];
    long[] version = new long[n];
    String[] event = new String[n];
    String[] stage = new String[n];
    long[] seq = new long[n];
    long[] time = new long[n];
    String[] key = new String[n];
    String[] checkpoint = new String[n];
    String[] dataTable = new String[n];
    Long[] dataVersion = new Long[n];
    String[] experiment = new String[n];
    String[] trial = new String[n];
    String[] code = new String[n];
    String[] reason = new String[n];
    String[] json = new String[n];
    String[] comparison = new String[n];
    for (int i = 0; i < n; i++) {
      Event e = events.get(i);
      name[i] = e.name();
      version[i] = e.version();
      event[i] = e.event();
      stage[i] = e.stage().name();
      seq[i] = sequence;
      time[i] = Math.multiplyExact(e.timeMillis(), 1000L);
      key[i] = e.idempotencyKey();
      reason[i] = e.reason();
      comparison[i] = e.comparison() == null ? null : toJson(e.comparison());
      ModelVersion v = e.registered();
      if (v != null) {
        checkpoint[i] = v.getCheckpoint().getUri();
        dataTable[i] = v.getData().getUri().isEmpty() ? null : v.getData().getUri();
        dataVersion[i] = dataTable[i] == null ? null : v.getData().getVersion();
        experiment[i] = emptyToNull(v.getExperimentId());
        trial[i] = emptyToNull(v.getTrialId());
        code[i] = emptyToNull(v.getCodeVersion());
        json[i] = toJson(v);
      } else if (!e.who().isEmpty()) {
        json[i] =
            toJson(
                StageChange.newBuilder()
                    .setStage(e.stage())
                    .setTimeMillis(e.timeMillis())
                    .setReason(e.reason() == null ? "" : e.reason())
                    .setWho(e.who())
                    .build());
      }
    }
    return Columns.of(n)
        .add("name", name)
        .add("version", version)
        .add("event", event)
        .add("stage", stage)
        .add("sequence", seq)
        .add("time", time)
        .add("idempotency_key", key)
        .add("checkpoint_uri", checkpoint)
        .add("data_table", dataTable)
        .add("data_version", dataVersion)
        .add("experiment_id", experiment)
        .add("trial_id", trial)
        .add("code_version", code)
        .add("reason", reason)
        .add("model_json", json)
        .add("comparison_json", comparison);
  }

  /** A row's stage; one this build does not know (written by a newer Keel) is named. */
  private static ModelStage stageOf(Map<String, Object> row) {
    String stage = (String) row.get("stage");
    if (stage != null && EnumNames.names(ModelStage.getDescriptor()).contains(stage)) {
      return ModelStage.valueOf(stage);
    }
    throw new IllegalStateException(
        "the registry's row of "
            + row.get("name")
            + " v"
            + row.get("version")
            + " has stage '"
            + stage
            + "', which this Keel does not know (expected "
            + EnumNames.expected(ModelStage.getDescriptor())
            + "): was it written by a newer Keel?");
  }

  /** Every version, by name then version, with its current stage and stage history. */
  static List<ModelVersion> fold(List<Map<String, Object>> rows) {
    List<Map<String, Object>> sorted = new ArrayList<>(rows);
    sorted.sort(
        Comparator.comparing((Map<String, Object> r) -> (String) r.get("name"))
            .thenComparingLong(r -> (Long) r.get("sequence"))
            .thenComparing(r -> REGISTERED.equals(r.get("event")) ? 0 : 1));
    Map<String, ModelVersion.Builder> byKey = new LinkedHashMap<>();
    for (Map<String, Object> r : sorted) {
      String key = r.get("name") + "\u0000" + r.get("version");
      long millis = ((Instant) r.get("time")).toEpochMilli();
      if (REGISTERED.equals(r.get("event"))) {
        ModelVersion.Builder b = fromJson((String) r.get("model_json"));
        b.clearHistory()
            .addHistory(
                StageChange.newBuilder()
                    .setStage(b.getStage())
                    .setTimeMillis(millis)
                    .setReason("registered"));
        byKey.put(key, b);
      } else if (COMPARED.equals(r.get("event"))) {
        ModelVersion.Builder b = byKey.get(key);
        if (b != null) {
          Comparison.Builder c = Comparison.newBuilder();
          merge((String) r.get("comparison_json"), c);
          b.addComparisons(c);
        }
      } else {
        ModelVersion.Builder b = byKey.get(key);
        if (b != null) {
          ModelStage stage = stageOf(r);
          StageChange.Builder change = StageChange.newBuilder();
          if (r.get("model_json") != null) { // who asked, when someone did
            merge((String) r.get("model_json"), change);
          }
          b.setStage(stage)
              .addHistory(
                  change
                      .setStage(stage)
                      .setTimeMillis(millis)
                      .setReason(r.get("reason") == null ? "" : (String) r.get("reason")));
        }
      }
    }
    return byKey.values().stream()
        .map(ModelVersion.Builder::build)
        .sorted(
            Comparator.comparing(ModelVersion::getName).thenComparingLong(ModelVersion::getVersion))
        .toList();
  }

  /** Whether a comparison of this challenger by this decider is recorded. */
  static boolean compared(
      List<Map<String, Object>> rows, String name, long version, String decidedBy) {
    return rows.stream()
        .anyMatch(
            r ->
                COMPARED.equals(r.get("event"))
                    && name.equals(r.get("name"))
                    && Long.valueOf(version).equals(r.get("version"))
                    && decidedBy.equals(r.get("idempotency_key")));
  }

  /** The version an idempotency key registered, if any. */
  static Long versionOfKey(List<Map<String, Object>> rows, String name, String idempotencyKey) {
    for (Map<String, Object> r : rows) {
      if (REGISTERED.equals(r.get("event"))
          && name.equals(r.get("name"))
          && idempotencyKey.equals(r.get("idempotency_key"))) {
        return (Long) r.get("version");
      }
    }
    return null;
  }

  private static String emptyToNull(String s) {
    return s.isEmpty() ? null : s;
  }

  private static String toJson(MessageOrBuilder m) {
    try {
      return JsonFormat.printer().omittingInsignificantWhitespace().print(m);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("unwritable registry row: " + e.getMessage(), e);
    }
  }

  private static ModelVersion.Builder fromJson(String json) {
    ModelVersion.Builder b = ModelVersion.newBuilder();
    merge(json, b);
    return b;
  }

  private static void merge(String json, Message.Builder b) {
    try {
      JsonFormat.parser().ignoringUnknownFields().merge(json, b);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("unreadable row in the model registry: " + e.getMessage(), e);
    }
  }
}
