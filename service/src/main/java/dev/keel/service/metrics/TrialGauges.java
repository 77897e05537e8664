package dev.keel.service.metrics;

import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.TrialState;
import dev.keel.service.visibility.WorkflowListing;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code keel_trials{pool,state}}: the trials of the running experiments that are training now ({@code
 * running}) or waiting for slots of their pool ({@code queued}), from each experiment's {@code state}
 * query and its active trials' pending Train activities; read for a scrape at most every {@link #MAX_AGE},
 * since each reading asks Temporal about every running experiment and active trial.
 */
public final class TrialGauges {
  static final Duration MAX_AGE = Duration.ofSeconds(10);
  private static final String TRAIN = "Train";

  private final WorkflowClient client;
  private final Duration maxAge;
  private final MultiGauge gauge;
  private long readNanos;
  private boolean read;

  public TrialGauges(WorkflowClient client) {
    this(client, MAX_AGE);
  }

  TrialGauges(WorkflowClient client, Duration maxAge) {
    this.client = client;
    this.maxAge = maxAge;
    this.gauge = MultiGauge.builder("keel.trials").description("trials of running experiments by pool and state")
        .register(KeelMetrics.registry());
  }

  /** Reads the running experiments again unless the last reading is younger than {@link #MAX_AGE}. */
  public synchronized void refresh() {
    if (read && System.nanoTime() - readNanos < maxAge.toNanos()) {
      return;
    }
    Map<String, int[]> byPool = new TreeMap<>();
    for (WorkflowExecutionInfo info : WorkflowListing.executions(client, ExperimentWorkflow.TYPE, true)) {
      ExperimentState s;
      try {
        s = client.newWorkflowStub(ExperimentWorkflow.class, info.getExecution().getWorkflowId()).state();
      } catch (WorkflowException e) {
        continue; // ended between the listing and the query
      }
      // an experiment started before its state named the pool trains in the default one
      String pool = s.getResourcePool().isEmpty() ? ConfigDefaults.RESOURCE_POOL : s.getResourcePool();
      int[] counts = byPool.computeIfAbsent(pool, p -> new int[2]);
      for (TrialState t : s.getTrialsList()) {
        if (t.getState() == TrialState.State.ACTIVE && !t.getWorkflowId().isEmpty()) {
          trainState(t).ifPresent(running -> counts[running ? 0 : 1]++);
        }
      }
    }
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    byPool.forEach((pool, counts) -> {
      rows.add(MultiGauge.Row.of(Tags.of("pool", pool, "state", "running"), counts[0]));
      rows.add(MultiGauge.Row.of(Tags.of("pool", pool, "state", "queued"), counts[1]));
    });
    gauge.register(rows, true);
    readNanos = System.nanoTime();
    read = true;
  }

  /**
   * Whether an active trial trains now (every Train activity of its step started: true) or waits for slots
   * (a Train activity not picked up yet, or ranks of its gang still missing: false); empty between two
   * steps, when it asks for no slot.
   */
  private Optional<Boolean> trainState(TrialState t) {
    List<PendingActivityInfo> train;
    try {
      train = client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
              DescribeWorkflowExecutionRequest.newBuilder().setNamespace(client.getOptions().getNamespace())
                  .setExecution(WorkflowExecution.newBuilder().setWorkflowId(t.getWorkflowId())).build())
          .getPendingActivitiesList().stream().filter(a -> TRAIN.equals(a.getActivityType().getName())).toList();
    } catch (StatusRuntimeException e) {
      return Optional.empty(); // its workflow starts a moment after the experiment lists it
    }
    if (train.isEmpty()) {
      return t.getWaiting().isEmpty() ? Optional.empty() : Optional.of(false);
    }
    boolean started = train.stream().allMatch(a -> a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);
    return Optional.of(started && t.getWaiting().isEmpty());
  }
}
