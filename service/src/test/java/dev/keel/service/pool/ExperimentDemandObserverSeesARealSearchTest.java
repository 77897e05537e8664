package dev.keel.service.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.activities.TaskQueues;
import dev.keel.api.v1.PoolDemand;
import dev.keel.api.v1.PoolDemandRequest;
import dev.keel.api.v1.PoolGang;
import dev.keel.api.v1.PoolInstance;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.service.api.SearchStack;
import dev.keel.service.testing.Poll;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import dev.keel.workflows.pool.InstanceHosts;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * {@link ExperimentDemandObserver} against real experiments: a grid of two one-slot trials in pool
 * cpu, which has one training slot (a real worker on Fashion-MNIST), and a one-trial experiment in
 * pool gpu, which has none. The cpu pool's demand is one gang running on this machine's worker and
 * one queued; the gpu pool's is its trial, queued; neither pool sees the other's. Then a pipeline's
 * final training: a step on that worker that is no experiment's trial.
 */
class ExperimentDemandObserverSeesARealSearchTest {
  private static final String CPU =
      """
      name: demand-cpu
      data: {table: fashion_mnist}
      hyperparameters: {lr: 0.002, batch_size: 64, width: {type: categorical, vals: [4, 8]}, optimizer: adam}
      searcher: {name: grid, metric: validation_loss, smaller_is_better: true, max_length: {batches: 4000}}
      reproducibility: {seed: 3}
      model: {name: fashion_cnn}
      """;
  private static final String GPU =
      """
      name: demand-gpu
      data: {table: fashion_mnist}
      hyperparameters: {lr: 0.002, batch_size: 64, width: 4, optimizer: adam}
      searcher: {name: single, metric: validation_loss, smaller_is_better: true, max_length: {batches: 4000}}
      resources: {resource_pool: gpu}
      model: {name: fashion_cnn}
      """;
  private static final String PIPELINE =
      """
      name: demand-pipeline
      reuse: {table: {table: fashion_mnist}}
      experiment:
        hyperparameters: {lr: 0.002, batch_size: 64, width: 4, optimizer: adam}
        searcher: {name: single, metric: validation_loss, smaller_is_better: true, max_length: {batches: 10}}
        model: {name: fashion_cnn}
      final_training: {max_length: {batches: 100000}}
      """;

  @Test
  void countsRunningAndQueuedGangsOfItsOwnPoolWithTheWorkersThatRunThem() throws Exception {
    try (SearchStack stack = SearchStack.start("pool-demand")) {
      WorkflowServiceStubs stubs = KeelWorkerHost.connect(stack.temporalAddress());
      try {
        ExperimentDemandObserver observer =
            new ExperimentDemandObserver(KeelWorkerHost.client(stubs, "default"));
        String cpu = stack.submit(CPU);
        String gpu = stack.submit(GPU);

        PoolDemand cpuDemand =
            await(
                observer,
                "cpu",
                d ->
                    d.getGangsCount() == 2
                        && d.getGangsList().stream().anyMatch(g -> g.getRanksStarted() == 1));
        String worker =
            ManagementFactory.getRuntimeMXBean().getName(); // the SDK's default identity: pid@host
        PoolGang running =
            cpuDemand.getGangsList().stream()
                .filter(g -> g.getRanksStarted() == 1)
                .findFirst()
                .orElseThrow();
        PoolGang queued =
            cpuDemand.getGangsList().stream()
                .filter(g -> g.getRanksStarted() == 0)
                .findFirst()
                .orElseThrow();
        assertEquals(
            List.of(worker), running.getHostsList(), "the worker that runs its Train activity");
        assertEquals(1, running.getSlots());
        assertEquals(cpu, running.getExperimentId());
        assertTrue(
            running.getTrialWorkflowId().startsWith(cpu + "/trial-"), running.getTrialWorkflowId());
        assertEquals(List.of(), queued.getHostsList());
        assertEquals(cpu, queued.getExperimentId());
        assertEquals(List.of(), cpuDemand.getNotesList());

        // an instance whose private DNS name is this host's name is the one that runs the rank
        String host = worker.substring(worker.indexOf('@') + 1);
        assertTrue(
            InstanceHosts.runsOn(
                worker,
                PoolInstance.newBuilder()
                    .setInstanceId("i-local")
                    .setPrivateDnsName(host + ".ec2.internal")
                    .build()));

        PoolDemand gpuDemand = await(observer, "gpu", d -> d.getGangsCount() == 1);
        assertEquals(gpu, gpuDemand.getGangs(0).getExperimentId());
        assertEquals(0, gpuDemand.getGangs(0).getRanksStarted(), "no worker polls keel-train-gpu");
        assertEquals(
            0,
            observer
                .observe(PoolDemandRequest.newBuilder().setPool("tpu").build())
                .getGangsCount());

        assertEquals(202, stack.post("/api/v1/experiments/" + cpu + "/kill").statusCode());
        assertEquals(202, stack.post("/api/v1/experiments/" + gpu + "/kill").statusCode());
        await(observer, "cpu", d -> d.getGangsCount() == 0);
        await(observer, "gpu", d -> d.getGangsCount() == 0);

        // a pipeline's final training is no trial: the worker it runs on is busy, but no pool's
        // demand
        // (started as `temporal workflow start` would: the REST API asks a pipeline for a source
        // even with reuse.table)
        WorkflowClient client = KeelWorkerHost.client(stubs, "default");
        PipelineWorkflow pipeline =
            client.newWorkflowStub(
                PipelineWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.CONTROL)
                    .setWorkflowId("pipeline-demand")
                    .build());
        WorkflowClient.start(
            pipeline::run, ExperimentConfigLoaders.pipelineLoader().fromYaml(PIPELINE));
        PoolDemand training = await(observer, "cpu", d -> d.getOtherStepsCount() == 1);
        assertEquals(List.of(worker), training.getOtherSteps(0).getHostsList());
        assertEquals("pipeline-demand", training.getOtherSteps(0).getTrialWorkflowId());
        assertEquals(0, training.getGangsCount(), "its search has ended");
      } finally {
        stubs.shutdownNow();
      }
    }
  }

  private static PoolDemand await(
      ExperimentDemandObserver observer, String pool, Predicate<PoolDemand> done)
      throws InterruptedException {
    return Poll.until(
        "the demand of pool " + pool,
        Duration.ofMinutes(2),
        () -> observer.observe(PoolDemandRequest.newBuilder().setPool(pool).build()),
        done);
  }
}
