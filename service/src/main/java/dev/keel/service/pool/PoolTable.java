package dev.keel.service.pool;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.v1.PoolDecision;
import dev.keel.api.v1.PoolInstanceState;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.PoolStatus;
import dev.keel.api.v1.PoolStatuses;
import dev.keel.workflows.pool.PoolDurations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Pool provisioners as terminal tables (aligned columns) and as the API's JSON. */
public final class PoolTable {
  private PoolTable() {}

  /** One row per pool: instances by state, gangs, and the last decision with its age. */
  public static String list(List<PoolStatus> pools, Instant now) {
    if (pools.isEmpty()) {
      return "no pool provisioner runs (keel pool start SPEC starts one)\n";
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(
        List.of(
            "POOL",
            "DESIRED",
            "RUNNING",
            "BUSY",
            "IDLE",
            "STARTING",
            "FAILED",
            "GANGS",
            "QUEUED",
            "LAST DECISION"));
    for (PoolStatus s : pools) {
      rows.add(
          List.of(
              s.getSpec().getName(),
              Integer.toString(s.getDesired()),
              Integer.toString(s.getRunning()),
              Integer.toString(s.getBusy()),
              Integer.toString(s.getIdle()),
              Integer.toString(s.getStarting()),
              Integer.toString(s.getFailed()),
              Integer.toString(s.getQueuedGangs() + s.getRunningGangs()),
              Integer.toString(s.getQueuedGangs()),
              decision(s.getLastDecision(), now)));
    }
    return aligned(rows);
  }

  /**
   * Everything of one pool: spec, counts, demand, last decision and error, notes, and one row per
   * instance.
   */
  public static String describe(PoolStatus s, Instant now) {
    PoolSpec spec = s.getSpec();
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "pool %s (workflow %s%s): %s%n",
            spec.getName(),
            s.getWorkflowId(),
            s.getStopped() ? ", stopped" : "",
            PoolProvisioners.actuator(spec)));
    out.append(
        String.format(
            Locale.ROOT,
            "  %d slot%s per instance, %d..%d instances, max_idle_period %s, max_starting_period %s,"
                + " poll every %s%n",
            spec.getSlotsPerInstance(),
            spec.getSlotsPerInstance() == 1 ? "" : "s",
            spec.getMinInstances(),
            spec.getMaxInstances(),
            spec.getMaxIdlePeriod(),
            spec.getMaxStartingPeriod(),
            spec.getPollInterval()));
    out.append(
        String.format(
            Locale.ROOT,
            "desired %d: %d running (%d busy, %d idle), %d starting, %d failed%s%n",
            s.getDesired(),
            s.getRunning(),
            s.getBusy(),
            s.getIdle(),
            s.getStarting(),
            s.getFailed(),
            s.getObservedAtMillis() == 0
                ? " (not observed yet)"
                : ", seen " + ago(s.getObservedAtMillis(), now)));
    out.append(
        String.format(
            Locale.ROOT,
            "demand: %d gang%s, %d slot%s (%d queued)%n",
            s.getQueuedGangs() + s.getRunningGangs(),
            s.getQueuedGangs() + s.getRunningGangs() == 1 ? "" : "s",
            s.getDemandedSlots(),
            s.getDemandedSlots() == 1 ? "" : "s",
            s.getQueuedGangs()));
    out.append("last decision: ").append(decision(s.getLastDecision(), now)).append('\n');
    if (s.hasLastChange()
        && s.getLastChange().getTimeMillis() != s.getLastDecision().getTimeMillis()) {
      out.append("last change: ").append(decision(s.getLastChange(), now)).append('\n');
    }
    if (s.hasLastError()) {
      out.append(
          String.format(
              Locale.ROOT,
              "last error, %s (%d in a row): %s%n",
              ago(s.getLastError().getTimeMillis(), now),
              s.getLastError().getConsecutiveFailures(),
              s.getLastError().getMessage()));
    }
    if (s.getBackoffUntilMillis() > 0) {
      out.append("backing off until ")
          .append(Instant.ofEpochMilli(s.getBackoffUntilMillis()))
          .append('\n');
    }
    for (String note : s.getNotesList()) {
      out.append("note: ").append(note).append('\n');
    }
    if (s.getInstancesCount() > 0) {
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("INSTANCE", "STATE", "SINCE", "PROTECTED", "HOST", "GANGS"));
      for (PoolInstanceState i : s.getInstancesList()) {
        rows.add(
            List.of(
                i.getInstanceId(),
                i.getPhase().name() + " (" + i.getLifecycleState() + ")",
                ago(i.getSinceMillis(), now),
                i.getProtectedFromScaleIn() ? "yes" : "no",
                i.getHost(),
                String.join(", ", i.getGangsList())));
      }
      out.append(aligned(rows));
    }
    return out.toString();
  }

  /** JSON with every field, also zero counts (protobuf's field names). */
  public static String json(MessageOrBuilder status) {
    try {
      return JsonFormat.printer()
          .preservingProtoFieldNames()
          .includingDefaultValueFields()
          .print(status);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String json(List<PoolStatus> pools) {
    return json(PoolStatuses.newBuilder().addAllPools(pools));
  }

  /** "12s ago: <reason>" (and "not applied" when the provider did not do it). */
  private static String decision(PoolDecision d, Instant now) {
    if (d.getTimeMillis() == 0) {
      return "none yet";
    }
    boolean change =
        d.getDesired() != d.getPreviousDesired()
            || d.getProtectCount() > 0
            || d.getUnprotectCount() > 0;
    return ago(d.getTimeMillis(), now)
        + ": "
        + d.getReason()
        + (change && !d.getApplied() ? " [not applied]" : "");
  }

  private static String ago(long millis, Instant now) {
    return PoolDurations.format(Math.max(0, now.toEpochMilli() - millis)) + " ago";
  }

  private static String aligned(List<List<String>> rows) {
    int[] widths = new int[rows.get(0).size()];
    for (List<String> row : rows) {
      for (int c = 0; c < row.size() - 1; c++) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.size(); c++) {
        line.append(
            c == row.size() - 1
                ? row.get(c)
                : String.format(Locale.ROOT, "%-" + widths[c] + "s  ", row.get(c)));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }
}
