package dev.keel.workflows.pool;

import dev.keel.api.v1.PoolCarry;
import dev.keel.api.v1.PoolDemand;
import dev.keel.api.v1.PoolGang;
import dev.keel.api.v1.PoolInstance;
import dev.keel.api.v1.PoolInstanceMemory;
import dev.keel.api.v1.PoolInstanceState;
import dev.keel.api.v1.PoolInstanceState.Phase;
import dev.keel.api.v1.PoolInstances;
import dev.keel.api.v1.PoolSpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns one look at the group into what each instance is doing: starting (since when; failed after
 * {@code max_starting_period}), busy with ranks of which gangs (or another training step), idle
 * since when, or leaving. The group's API knows nothing of idleness, so the provisioner remembers
 * when it last saw each instance busy ({@link PoolInstanceMemory}, carried across continue-as-new).
 * Pure.
 */
public final class PoolInstanceTracker {

  /**
   * @param instances by instance id
   * @param memory what to remember until the next look
   * @param launchFailures failed launches first seen in this look, each as a reason
   * @param notes what else the provisioner should show (ranks that run on no instance of the group)
   */
  public record Look(
      List<PoolInstanceState> instances,
      Map<String, PoolInstanceMemory> memory,
      long shortSinceMillis,
      boolean shortReported,
      List<String> launchFailures,
      List<String> notes) {}

  private PoolInstanceTracker() {}

  /**
   * @param demand its gangs and other steps make the instances they run on busy
   */
  public static Look look(
      PoolSpec spec, PoolInstances observed, PoolDemand demand, PoolCarry before, long now) {
    long maxStarting = PoolSpecs.millis(spec.getMaxStartingPeriod());
    List<PoolGang> steps = new ArrayList<>(demand.getGangsList());
    steps.addAll(demand.getOtherStepsList());
    Map<String, PoolInstanceMemory> memory = new TreeMap<>();
    List<PoolInstanceState> instances = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    List<PoolInstance> sorted = new ArrayList<>(observed.getInstancesList());
    sorted.sort(Comparator.comparing(PoolInstance::getInstanceId));
    for (PoolInstance i : sorted) {
      PoolInstanceMemory.Builder m =
          before
              .getInstancesOrDefault(
                  i.getInstanceId(),
                  PoolInstanceMemory.newBuilder().setFirstSeenMillis(now).build())
              .toBuilder();
      PoolInstanceState.Builder s =
          PoolInstanceState.newBuilder()
              .setInstanceId(i.getInstanceId())
              .setProtectedFromScaleIn(i.getProtectedFromScaleIn())
              .setHost(i.getPrivateIp())
              .setLifecycleState(i.getLifecycleState());
      String lifecycle = i.getLifecycleState();
      if (lifecycle.startsWith("Pending") || lifecycle.startsWith("Warmed:Pending")) {
        long starting = now - m.getFirstSeenMillis();
        s.setSinceMillis(m.getFirstSeenMillis())
            .setPhase(starting > maxStarting ? Phase.FAILED : Phase.STARTING);
        if (starting > maxStarting && !m.getFailed()) {
          failures.add(
              "instance "
                  + i.getInstanceId()
                  + " still starting after "
                  + PoolDurations.format(starting)
                  + " > max_starting_period "
                  + spec.getMaxStartingPeriod());
          m.setFailed(true);
        }
      } else if (lifecycle.equals("InService")) {
        if (m.getInServiceSinceMillis() == 0) {
          m.setInServiceSinceMillis(now);
        }
        List<String> here =
            steps.stream()
                .filter(g -> g.getHostsList().stream().anyMatch(h -> InstanceHosts.runsOn(h, i)))
                .map(PoolGang::getTrialWorkflowId)
                .toList();
        if (here.isEmpty()) {
          m.setBusySinceMillis(0);
          s.setPhase(Phase.IDLE)
              .setSinceMillis(Math.max(m.getLastBusyMillis(), m.getInServiceSinceMillis()));
        } else {
          m.setLastBusyMillis(now)
              .setBusySinceMillis(m.getBusySinceMillis() == 0 ? now : m.getBusySinceMillis());
          s.setPhase(Phase.BUSY).setSinceMillis(m.getBusySinceMillis()).addAllGangs(here);
        }
      } else {
        s.setPhase(Phase.LEAVING).setSinceMillis(m.getFirstSeenMillis());
      }
      memory.put(i.getInstanceId(), m.build());
      instances.add(s.build());
    }

    long listed = instances.stream().filter(s -> s.getPhase() != Phase.LEAVING).count();
    long shortSince = 0;
    boolean shortReported = false;
    if (observed.getDesiredCapacity() > listed) {
      shortSince = before.getShortSinceMillis() != 0 ? before.getShortSinceMillis() : now;
      shortReported = before.getShortReported();
      if (now - shortSince > maxStarting && !shortReported) {
        failures.add(
            "the group was asked for "
                + observed.getDesiredCapacity()
                + " instance"
                + plural(observed.getDesiredCapacity())
                + " but has had only "
                + listed
                + " for "
                + PoolDurations.format(now - shortSince)
                + " > max_starting_period "
                + spec.getMaxStartingPeriod()
                + (observed.getLaunchFailuresCount() == 0
                    ? ""
                    : "; the provider says: " + observed.getLaunchFailures(0)));
        shortReported = true;
      }
    }

    List<String> notes = new ArrayList<>();
    for (PoolGang g : demand.getGangsList()) {
      if (g.getRanksStarted() > 0
          && g.getHostsCount() > 0
          && observed.getInstancesList().stream()
              .noneMatch(
                  i -> g.getHostsList().stream().anyMatch(h -> InstanceHosts.runsOn(h, i)))) {
        notes.add(
            g.getTrialWorkflowId()
                + " runs on no instance of the group ("
                + String.join(", ", g.getHostsList())
                + ")");
      }
    }
    return new Look(
        List.copyOf(instances),
        memory,
        shortSince,
        shortReported,
        List.copyOf(failures),
        List.copyOf(notes));
  }

  static String plural(long n) {
    return n == 1 ? "" : "s";
  }
}
