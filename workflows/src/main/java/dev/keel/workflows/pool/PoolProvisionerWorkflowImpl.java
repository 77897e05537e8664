package dev.keel.workflows.pool;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.pool.PoolActivityOptions;
import dev.keel.activities.pool.PoolCapacityActivities;
import dev.keel.activities.pool.PoolDemandActivities;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.ConfigValidationException;
import dev.keel.api.v1.PoolCarry;
import dev.keel.api.v1.PoolDecision;
import dev.keel.api.v1.PoolDemand;
import dev.keel.api.v1.PoolDemandRequest;
import dev.keel.api.v1.PoolError;
import dev.keel.api.v1.PoolGang;
import dev.keel.api.v1.PoolInstanceState;
import dev.keel.api.v1.PoolInstances;
import dev.keel.api.v1.PoolProvisionerRequest;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.PoolStatus;
import dev.keel.api.v1.ResizePoolRequest;
import dev.keel.workflows.experiment.ActivityFailures;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * See {@link PoolProvisionerWorkflow}. Deterministic: the clock is the workflow's, all I/O is in
 * the pool activities.
 */
public class PoolProvisionerWorkflowImpl implements PoolProvisionerWorkflow {
  /** Continue as new by this history length whatever the spec says. */
  private static final int MAX_HISTORY_EVENTS = 20_000;

  private static final Logger log = Workflow.getLogger(PoolProvisionerWorkflowImpl.class);

  private PoolSpec spec;
  private PoolSpec pendingSpec;
  private boolean stopRequested;
  private PoolCarry.Builder carry = PoolCarry.newBuilder();

  /** What the last look saw: instances, their counts, the demand. */
  private PoolStatus.Builder seen = PoolStatus.newBuilder();

  private final List<String> signalNotes = new ArrayList<>();

  @Override
  public PoolStatus run(PoolProvisionerRequest request) {
    if (!request.hasCarry()) {
      List<ConfigProblem> problems = PoolSpecs.validate(request.getSpec());
      if (!problems.isEmpty()) {
        throw ApplicationFailure.newNonRetryableFailure(
            new ConfigValidationException(PoolSpecs.SPEC, problems).getMessage(),
            FailureTypes.INVALID_POOL_SPEC);
      }
    }
    spec = PoolSpecs.withDefaults(request.getSpec());
    carry = request.getCarry().toBuilder();
    seen = carry.getSeen().toBuilder();
    long looks = 0;
    while (true) {
      if (pendingSpec != null) {
        spec = pendingSpec;
        pendingSpec = null;
      }
      boolean observed = look();
      carry.setIterations(carry.getIterations() + 1);
      looks++;
      if (stopRequested) {
        break;
      }
      long wait = PoolSpecs.millis(spec.getPollInterval());
      if (!observed) {
        // the provider (or Temporal) did not answer: the next look waits for the back-off too
        wait = Math.max(wait, carry.getBackoffUntilMillis() - Workflow.currentTimeMillis());
      }
      Workflow.await(Duration.ofMillis(wait), () -> stopRequested || pendingSpec != null);
      if (stopRequested) {
        break;
      }
      // after the wait, so that the next run's first look keeps the poll interval
      if (pendingSpec == null
          && (looks >= spec.getContinueAsNewAfterIterations()
              || Workflow.getInfo().getHistoryLength() > MAX_HISTORY_EVENTS)) {
        carry.setRuns(carry.getRuns() + 1).setSeen(seen);
        Workflow.continueAsNew(
            PoolProvisionerRequest.newBuilder().setSpec(spec).setCarry(carry).build());
      }
    }
    log.info(
        "provisioner of pool {} stopped after {} looks", spec.getName(), carry.getIterations());
    return status().toBuilder().setStopped(true).build();
  }

  /**
   * One look: observe, decide, and ask the provider when something changes. False when observing
   * failed.
   */
  private boolean look() {
    PoolDemand demand;
    PoolInstances observed;
    try {
      demand =
          Workflow.newActivityStub(
                  PoolDemandActivities.class, PoolActivityOptions.forDemand(spec.getName()))
              .observe(PoolDemandRequest.newBuilder().setPool(spec.getName()).build());
      observed = capacity(PoolActivityOptions.forDescribe(spec.getName())).describe(spec);
    } catch (ActivityFailure e) {
      fail("could not observe the pool: " + ActivityFailures.rootMessage(e));
      return false;
    }
    long now = Workflow.currentTimeMillis();
    PoolInstanceTracker.Look look =
        PoolInstanceTracker.look(spec, observed, demand, carry.build(), now);
    carry
        .clearInstances()
        .putAllInstances(look.memory())
        .setShortSinceMillis(look.shortSinceMillis())
        .setShortReported(look.shortReported());
    look.launchFailures().forEach(this::fail);
    PoolBackoff backoff =
        new PoolBackoff(
            carry.getLaunchFailures(),
            carry.getBackoffUntilMillis(),
            carry.getLastError().getMessage());
    ScalingDecision decision =
        PoolScaling.decide(
            spec,
            demand.getGangsList(),
            look.instances(),
            observed.getDesiredCapacity(),
            backoff,
            now);
    PoolDecision.Builder record = decision.toProto(now).toBuilder();
    int desired = observed.getDesiredCapacity();
    boolean healthy = look.launchFailures().isEmpty() && !decision.heldByBackoff();
    if (decision.changes() && !decision.heldByBackoff()) {
      ResizePoolRequest.Builder resize =
          ResizePoolRequest.newBuilder()
              .setSpec(spec)
              .addAllProtect(decision.protect())
              .addAllUnprotect(decision.unprotect())
              .setReason(decision.reason());
      if (decision.desired() != decision.previousDesired()) {
        resize.setDesired(decision.desired());
      }
      Duration timeout =
          spec.hasTofu()
              ? Duration.ofMillis(PoolSpecs.millis(spec.getTofu().getTimeout()))
              : PoolActivityOptions.CALL_TIMEOUT;
      String summary =
          "pool "
              + spec.getName()
              + ": desired "
              + decision.previousDesired()
              + " → "
              + decision.desired();
      try {
        capacity(PoolActivityOptions.forResize(summary, timeout)).resize(resize.build());
        record.setApplied(true);
        desired = decision.desired();
        log.info("pool {}: {}", spec.getName(), decision.reason());
      } catch (ActivityFailure e) {
        healthy = false;
        fail(
            "the provider refused "
                + (resize.hasDesired() ? "desired " + decision.desired() : "the protection change")
                + ": "
                + ActivityFailures.rootMessage(e));
      }
    }
    if (healthy) {
      carry.setLaunchFailures(0);
    }
    carry.setLastDecision(record);
    if (record.getApplied()) {
      carry.setLastChange(record);
    }
    seen = summary(look, demand, desired, now);
    return true;
  }

  private PoolCapacityActivities capacity(ActivityOptions options) {
    return Workflow.newActivityStub(PoolCapacityActivities.class, options);
  }

  /** Records a failure and starts (or lengthens) the back-off. */
  private void fail(String message) {
    long now = Workflow.currentTimeMillis();
    int failures = carry.getLaunchFailures() + 1;
    long delay = PoolBackoff.delayMillis(spec, failures);
    carry
        .setLaunchFailures(failures)
        .setBackoffUntilMillis(now + delay)
        .setLastError(
            PoolError.newBuilder()
                .setTimeMillis(now)
                .setMessage(message)
                .setConsecutiveFailures(failures));
    log.warn(
        "pool {}: {} (failure {} in a row; asking for nothing for {})",
        spec.getName(),
        message,
        failures,
        PoolDurations.format(delay));
  }

  private static PoolStatus.Builder summary(
      PoolInstanceTracker.Look look, PoolDemand demand, int desired, long now) {
    PoolStatus.Builder s =
        PoolStatus.newBuilder()
            .setDesired(desired)
            .setObservedAtMillis(now)
            .addAllInstances(look.instances());
    for (PoolInstanceState i : look.instances()) {
      switch (i.getPhase()) {
        case STARTING -> s.setStarting(s.getStarting() + 1);
        case BUSY -> s.setBusy(s.getBusy() + 1).setRunning(s.getRunning() + 1);
        case IDLE -> s.setIdle(s.getIdle() + 1).setRunning(s.getRunning() + 1);
        case FAILED -> s.setFailed(s.getFailed() + 1);
        default -> {}
      }
    }
    for (PoolGang g : demand.getGangsList()) {
      int slots = PoolScaling.slots(g);
      s.setDemandedSlots(s.getDemandedSlots() + slots);
      if (g.getRanksStarted() < slots) {
        s.setQueuedGangs(s.getQueuedGangs() + 1);
      } else {
        s.setRunningGangs(s.getRunningGangs() + 1);
      }
    }
    return s.addAllNotes(demand.getNotesList()).addAllNotes(look.notes());
  }

  @Override
  public PoolStatus status() {
    PoolStatus.Builder s =
        seen.clone()
            .setWorkflowId(Workflow.getInfo().getWorkflowId())
            .setIterations(carry.getIterations())
            .setContinuedAsNew(carry.getRuns())
            .setStopped(stopRequested)
            .addAllNotes(signalNotes);
    if (spec != null) {
      s.setSpec(spec);
    }
    if (carry.hasLastDecision()) {
      s.setLastDecision(carry.getLastDecision());
    }
    if (carry.hasLastChange()) {
      s.setLastChange(carry.getLastChange());
    }
    if (carry.hasLastError()) {
      s.setLastError(carry.getLastError());
    }
    if (carry.getBackoffUntilMillis() > Workflow.currentTimeMillis()) {
      s.setBackoffUntilMillis(carry.getBackoffUntilMillis());
    }
    return s.build();
  }

  @Override
  public void updateSpec(PoolSpec update) {
    List<ConfigProblem> problems = new ArrayList<>(PoolSpecs.validate(update));
    if (spec != null && !update.getName().equals(spec.getName())) {
      problems.add(
          new ConfigProblem(
              "name",
              "this provisioner sizes pool "
                  + spec.getName()
                  + "; start another one for "
                  + update.getName()));
    }
    if (!problems.isEmpty()) {
      signalNotes.add(
          "spec update refused: "
              + new ConfigValidationException(PoolSpecs.SPEC, problems).getMessage());
      return;
    }
    signalNotes.clear();
    pendingSpec = PoolSpecs.withDefaults(update);
  }

  @Override
  public void stop() {
    stopRequested = true;
  }
}
