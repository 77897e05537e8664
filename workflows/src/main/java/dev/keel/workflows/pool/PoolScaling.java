package dev.keel.workflows.pool;

import dev.keel.api.v1.PoolGang;
import dev.keel.api.v1.PoolInstanceState;
import dev.keel.api.v1.PoolInstanceState.Phase;
import dev.keel.api.v1.PoolSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The provisioner's decision: how many instances the pool should have, which to protect from
 * scale-in, and why. Pure and deterministic (the workflow calls it on every look; tests call it on
 * tables).
 *
 * <p>Sizing: every live gang (a trial that trains a step or waits to) needs all its {@code slots}
 * at once, one slot per rank. The ranks of one gang may span instances (each slot is a worker
 * process that takes any rank), so the pool needs {@code ceil(sum of slots / slots_per_instance)}
 * instances, clamped to {@code [min_instances, max_instances]}; a gang larger than the whole pool
 * at {@code max_instances} is left out (it could never start) and named.
 *
 * <p>Scale-out raises the desired count to that at once, unless a launch-error back-off is running.
 * Scale-in never removes an instance that runs a rank: busy instances are protected, idle ones
 * released, and the desired count goes down only by the instances idle for at least {@code
 * max_idle_period} (or failed to start, or asked for but never listed), never below the demand or
 * {@code min_instances}.
 */
public final class PoolScaling {
  private static final int NAMED = 3;

  private PoolScaling() {}

  /**
   * @param gangs the live gangs of the pool's queue
   * @param instances what each instance of the group is doing ({@link PoolInstanceTracker})
   * @param currentDesired the group's desired count
   */
  public static ScalingDecision decide(
      PoolSpec spec,
      List<PoolGang> gangs,
      List<PoolInstanceState> instances,
      int currentDesired,
      PoolBackoff backoff,
      long nowMillis) {
    int perInstance = spec.getSlotsPerInstance();
    int min = spec.getMinInstances();
    int max = spec.getMaxInstances();
    long poolSlots = (long) max * perInstance;
    List<String> notes = new ArrayList<>();
    List<PoolGang> live = new ArrayList<>();
    for (PoolGang g : gangs) {
      if (slots(g) > poolSlots) {
        notes.add(
            g.getTrialWorkflowId()
                + " needs "
                + slots(g)
                + " slots but the pool holds at most "
                + poolSlots
                + " (max_instances "
                + max
                + " × "
                + perInstance
                + " slot"
                + plural(perInstance)
                + "): it can never start here");
      } else {
        live.add(g);
      }
    }
    long demandSlots = live.stream().mapToLong(PoolScaling::slots).sum();
    int need = (int) Math.min(Integer.MAX_VALUE, (demandSlots + perInstance - 1) / perInstance);
    int target = Math.max(min, Math.min(max, need));
    List<PoolGang> queued = live.stream().filter(g -> g.getRanksStarted() < slots(g)).toList();

    for (PoolInstanceState i : instances) {
      if (i.getPhase() == Phase.FAILED) {
        notes.add(
            "instance "
                + i.getInstanceId()
                + " still starting after "
                + PoolDurations.format(nowMillis - i.getSinceMillis())
                + " > max_starting_period "
                + spec.getMaxStartingPeriod()
                + ": counted as a failed launch");
      }
    }
    List<String> protect =
        ids(instances, i -> i.getPhase() == Phase.BUSY && !i.getProtectedFromScaleIn());
    List<String> unprotect =
        ids(
            instances,
            i ->
                (i.getPhase() == Phase.IDLE || i.getPhase() == Phase.FAILED)
                    && i.getProtectedFromScaleIn());

    int desired = currentDesired;
    String sizing;
    boolean due = !protect.isEmpty() || !unprotect.isEmpty();
    if (target > currentDesired) {
      due = true;
      sizing = scaleOutReason(live, queued, demandSlots, need, target, currentDesired, spec);
      desired = target;
    } else if (target < currentDesired) {
      long maxIdle = PoolSpecs.millis(spec.getMaxIdlePeriod());
      List<PoolInstanceState> longIdle =
          instances.stream()
              .filter(i -> i.getPhase() == Phase.IDLE && nowMillis - i.getSinceMillis() >= maxIdle)
              .sorted(Comparator.comparingLong(PoolInstanceState::getSinceMillis))
              .toList();
      List<PoolInstanceState> failed =
          instances.stream().filter(i -> i.getPhase() == Phase.FAILED).toList();
      long listed = instances.stream().filter(i -> i.getPhase() != Phase.LEAVING).count();
      long neverListed = Math.max(0, currentDesired - listed);
      long removable = longIdle.size() + failed.size() + neverListed;
      int lowered = (int) Math.max(target, currentDesired - removable);
      String surplus =
          (currentDesired - target)
              + " instance"
              + plural(currentDesired - target)
              + " more than needed ("
              + demandPhrase(live, demandSlots, need, min)
              + ")";
      if (lowered < currentDesired) {
        due = true;
        desired = lowered;
        List<String> why = new ArrayList<>();
        for (PoolInstanceState i :
            longIdle.subList(0, Math.min(longIdle.size(), currentDesired - lowered))) {
          why.add(
              "instance "
                  + i.getInstanceId()
                  + " idle for "
                  + PoolDurations.format(nowMillis - i.getSinceMillis())
                  + " > max_idle_period "
                  + spec.getMaxIdlePeriod());
        }
        if (!failed.isEmpty()) {
          why.add(failed.size() + " instance" + plural(failed.size()) + " failed to start");
        }
        if (neverListed > 0) {
          why.add(neverListed + " asked for but not started");
        }
        sizing =
            String.join(", ", why)
                + ": scale in ("
                + surplus
                + "), desired "
                + currentDesired
                + " → "
                + lowered;
      } else {
        List<PoolInstanceState> idle =
            instances.stream()
                .filter(i -> i.getPhase() == Phase.IDLE)
                .sorted(Comparator.comparingLong(PoolInstanceState::getSinceMillis))
                .toList();
        sizing =
            surplus
                + ", but "
                + (idle.isEmpty()
                    ? "none is idle"
                    : idle.stream()
                            .limit(NAMED)
                            .map(
                                i ->
                                    i.getInstanceId()
                                        + " has been idle only "
                                        + PoolDurations.format(nowMillis - i.getSinceMillis()))
                            .collect(Collectors.joining(", "))
                        + " of max_idle_period "
                        + spec.getMaxIdlePeriod())
                + ": desired stays "
                + currentDesired;
      }
    } else {
      sizing =
          capitalized(demandPhrase(live, demandSlots, need, min))
              + ": desired "
              + currentDesired
              + " fits";
      if (need > max) {
        sizing += " (capped at max_instances " + max + ")";
      }
    }

    boolean held = due && backoff.active(nowMillis);
    StringBuilder reason = new StringBuilder();
    if (held) {
      reason
          .append("backing off for ")
          .append(PoolDurations.format(backoff.untilMillis() - nowMillis))
          .append(" (until ")
          .append(Instant.ofEpochMilli(backoff.untilMillis()))
          .append(") after ")
          .append(backoff.failures())
          .append(" failure")
          .append(plural(backoff.failures()))
          .append(", the last: ")
          .append(backoff.lastError())
          .append("; not applied: ");
      desired = currentDesired;
      protect = List.of();
      unprotect = List.of();
    }
    reason.append(sizing);
    if (!held) {
      if (!protect.isEmpty()) {
        reason.append("; protect ").append(String.join(", ", protect)).append(" (running ranks)");
      }
      if (!unprotect.isEmpty()) {
        reason.append("; release ").append(String.join(", ", unprotect)).append(" (no rank)");
      }
    }
    for (String note : notes) {
      reason.append("; ").append(note);
    }
    return new ScalingDecision(
        currentDesired, desired, protect, unprotect, reason.toString(), held);
  }

  private static String scaleOutReason(
      List<PoolGang> live,
      List<PoolGang> queued,
      long demandSlots,
      int need,
      int target,
      int current,
      PoolSpec spec) {
    int more = target - current;
    String instances = more + " more instance" + plural(more);
    String out;
    if (!queued.isEmpty()) {
      out =
          queued.size()
              + " queued gang"
              + plural(queued.size())
              + " need"
              + (queued.size() == 1 ? "s " : " ")
              + instances
              + " ("
              + gangPhrase(queued)
              + "; "
              + demandSlots
              + " slot"
              + plural(demandSlots)
              + " in all on "
              + spec.getSlotsPerInstance()
              + "-slot instances = "
              + need
              + ")";
    } else if (need > current) {
      out =
          live.size()
              + " running gang"
              + plural(live.size())
              + " use "
              + demandSlots
              + " slot"
              + plural(demandSlots)
              + " = "
              + need
              + " instance"
              + plural(need)
              + ": "
              + instances;
    } else {
      out = "min_instances " + spec.getMinInstances() + ": " + instances;
    }
    if (need > spec.getMaxInstances()) {
      out += ", capped at max_instances " + spec.getMaxInstances();
    }
    return out + ": desired " + current + " → " + target;
  }

  /** "3 gangs, 4 slots = 2 instances", "no demand, min_instances 1". */
  private static String demandPhrase(List<PoolGang> live, long demandSlots, int need, int min) {
    if (live.isEmpty()) {
      return "no demand" + (min > 0 ? ", min_instances " + min : "");
    }
    return live.size()
        + " gang"
        + plural(live.size())
        + ", "
        + demandSlots
        + " slot"
        + plural(demandSlots)
        + " = "
        + need
        + " instance"
        + plural(need)
        + (need < min ? ", min_instances " + min : "");
  }

  /** "gang of 2 slots", "gangs of 2, 2 and 1 slots". */
  private static String gangPhrase(List<PoolGang> gangs) {
    List<String> sizes = gangs.stream().map(g -> Integer.toString(slots(g))).toList();
    if (sizes.size() == 1) {
      return "gang of " + sizes.get(0) + " slot" + plural(slots(gangs.get(0)));
    }
    List<String> shown = sizes.size() > 6 ? sizes.subList(0, 6) : sizes;
    String list =
        String.join(", ", shown.subList(0, shown.size() - 1))
            + (sizes.size() > 6
                ? ", " + shown.get(5) + ", …"
                : " and " + shown.get(shown.size() - 1));
    return "gangs of " + list + " slots";
  }

  static int slots(PoolGang g) {
    return Math.max(1, g.getSlots());
  }

  private static List<String> ids(
      List<PoolInstanceState> instances, Predicate<PoolInstanceState> p) {
    return instances.stream().filter(p).map(PoolInstanceState::getInstanceId).sorted().toList();
  }

  private static String capitalized(String s) {
    return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  private static String plural(long n) {
    return n == 1 ? "" : "s";
  }
}
