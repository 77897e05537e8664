package dev.keel.service.pool;

import dev.keel.activities.pool.PoolDemandActivities;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.PoolDemand;
import dev.keel.api.v1.PoolDemandRequest;
import dev.keel.api.v1.PoolGang;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.TrialState;
import dev.keel.service.visibility.WorkflowDescriptions;
import dev.keel.service.visibility.WorkflowListing;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.experiment.TrialWorkflow;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A pool's demand as Keel knows it: the running {@code Experiment} workflows whose {@code
 * resources.resource_pool} is the pool ({@code state} query), and of each its trials that train a
 * step or wait to (active, short of their target length). A trial's own workflow says how many of
 * its ranks a worker has started and where: its pending {@code Train} activities (started ones
 * carry the worker's identity) and, for a gang, the ranks that joined it (their hosts) and why it
 * waits. A running pipeline's final training is no trial: its Train activities are reported as
 * other steps, whose instances are busy but which count as no pool's demand (the pipeline's pool is
 * not known here).
 */
public final class ExperimentDemandObserver implements PoolDemandActivities {
  /** The training activity's type (TrainingActivities). */
  private static final String TRAIN = "Train";

  private final WorkflowClient client;

  public ExperimentDemandObserver(WorkflowClient client) {
    this.client = client;
  }

  @Override
  public PoolDemand observe(PoolDemandRequest request) {
    PoolDemand.Builder out = PoolDemand.newBuilder();
    Map<String, List<PoolGang>> byPool = gangsByPool(out);
    out.addAllGangs(byPool.getOrDefault(request.getPool(), List.of()));
    // a pipeline's final training is no trial: the instance it runs on is busy, though the
    // pipeline's pool is unknown here
    for (WorkflowExecutionInfo info :
        WorkflowListing.executions(client, PipelineWorkflow.TYPE, true)) {
      String id = info.getExecution().getWorkflowId();
      describe(id)
          .map(ExperimentDemandObserver::startedTrain)
          .filter(workers -> !workers.isEmpty())
          .ifPresent(
              workers ->
                  out.addOtherSteps(
                      PoolGang.newBuilder()
                          .setTrialWorkflowId(id)
                          .setSlots(workers.size())
                          .setRanksStarted(workers.size())
                          .addAllHosts(
                              workers.stream().filter(w -> !w.isBlank()).distinct().toList())));
    }
    return out.build();
  }

  /**
   * The gangs of every pool that has a running experiment, by pool: its active trials that train a
   * step or wait to. What could not be read goes into {@code notes}'s notes.
   */
  public Map<String, List<PoolGang>> gangsByPool(PoolDemand.Builder notes) {
    Map<String, List<PoolGang>> out = new TreeMap<>();
    for (WorkflowExecutionInfo info :
        WorkflowListing.executions(client, ExperimentWorkflow.TYPE, true)) {
      String id = info.getExecution().getWorkflowId();
      ExperimentState experiment;
      try {
        experiment = client.newWorkflowStub(ExperimentWorkflow.class, id).state();
      } catch (RuntimeException e) {
        notes.addNotes(
            "experiment "
                + id
                + " did not answer its state query ("
                + e.getMessage()
                + "): not counted");
        continue;
      }
      if (experiment.getResourcePool().isEmpty()) {
        notes.addNotes(
            "experiment " + id + " does not say its pool (started by an older Keel): not counted");
        continue;
      }
      for (TrialState trial : experiment.getTrialsList()) {
        if (trial.getState() == TrialState.State.ACTIVE && training(trial)) {
          gang(id, trial, notes)
              .ifPresent(
                  g ->
                      out.computeIfAbsent(experiment.getResourcePool(), p -> new ArrayList<>())
                          .add(g));
        }
      }
    }
    return out;
  }

  /** The trial trains toward its target, or will as soon as it has slots (TrialBook's "busy"). */
  private static boolean training(TrialState trial) {
    try {
      return TrainingLength.of(trial.getCompletedLength())
          .isShorterThan(TrainingLength.of(trial.getTargetLength()));
    } catch (RuntimeException e) {
      return true; // a length without a unit: count it rather than starve it
    }
  }

  private Optional<PoolGang> gang(String experimentId, TrialState trial, PoolDemand.Builder out) {
    int slots = Math.max(1, trial.getSlots());
    PoolGang.Builder gang =
        PoolGang.newBuilder()
            .setTrialWorkflowId(trial.getWorkflowId())
            .setExperimentId(experimentId)
            .setTrialId(trial.getTrialId())
            .setSlots(slots);
    Optional<DescribeWorkflowExecutionResponse> described = describe(trial.getWorkflowId());
    if (described.isEmpty()) {
      return Optional.of(gang.build()); // asked for, not started yet: queued
    }
    if (described.get().getWorkflowExecutionInfo().getStatus()
        != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      return Optional.empty(); // ended; the experiment has not heard yet
    }
    List<String> workers = startedTrain(described.get());
    int started = workers.size();
    Set<String> hosts = new LinkedHashSet<>(workers.stream().filter(w -> !w.isBlank()).toList());
    if (slots > 1) {
      try {
        TrialState live =
            client.newWorkflowStub(TrialWorkflow.class, trial.getWorkflowId()).state();
        if (started > 0) {
          live.getRanksList().stream()
              .map(RankInfo::getHost)
              .filter(h -> !h.isBlank())
              .forEach(hosts::add);
        }
        gang.setWaiting(live.getWaiting());
      } catch (RuntimeException e) {
        out.addNotes(
            "trial "
                + trial.getWorkflowId()
                + " did not answer its state query ("
                + e.getMessage()
                + ")");
      }
    }
    return Optional.of(gang.setRanksStarted(Math.min(started, slots)).addAllHosts(hosts).build());
  }

  /** The workflow's description, or empty when Temporal does not know it (yet). */
  private Optional<DescribeWorkflowExecutionResponse> describe(String workflowId) {
    return WorkflowDescriptions.describe(client, workflowId);
  }

  /**
   * The worker identity of each Train activity a worker has started (one per rank; blank when the
   * server has none).
   */
  private static List<String> startedTrain(DescribeWorkflowExecutionResponse described) {
    List<String> workers = new ArrayList<>();
    for (PendingActivityInfo a : described.getPendingActivitiesList()) {
      if (a.getActivityType().getName().equals(TRAIN)
          && (a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
              || a.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED)) {
        workers.add(a.getLastWorkerIdentity());
      }
    }
    return workers;
  }
}
