package dev.keel.service.worker;

import dev.keel.activities.TaskQueues;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.inference.InferenceActivitiesImpl;
import dev.keel.service.logging.LogContext;
import dev.keel.service.metrics.ActivityMetrics;
import dev.keel.service.metrics.KeelMetrics;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import dev.keel.workflows.KeelWorkflows;
import dev.keel.workflows.RejectedInputMarksThePipeline;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Connects to Temporal and runs the workers of the roles it is given. */
public final class KeelWorkerHost implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KeelWorkerHost.class);

  /**
   * The longest a heartbeat waits in the SDK before it is sent (the SDK's own default is 0.8 x the
   * heartbeat timeout: 24 s for training); the details carry the last checkpoint a retry resumes
   * from and the progress {@code keel demo} shows, so they go at most every 2 s.
   */
  public static final Duration HEARTBEAT_THROTTLE = Duration.ofSeconds(2);

  private final WorkflowServiceStubs stubs;
  private final WorkflowClient client;
  private final WorkerFactory factory;

  /** The inference activities (their scoring threads and models), when this host serves INFER. */
  private final InferenceActivitiesImpl inference;

  private KeelWorkerHost(
      WorkflowServiceStubs stubs,
      WorkflowClient client,
      WorkerFactory factory,
      InferenceActivitiesImpl inference) {
    this.stubs = stubs;
    this.client = client;
    this.factory = factory;
    this.inference = inference;
  }

  /**
   * A client with Keel's data converter, for watching workflows; runs it starts name no storage
   * root.
   */
  public static WorkflowClient client(WorkflowServiceStubs stubs, String namespace) {
    return client(stubs, namespace, null);
  }

  /**
   * A client with Keel's data converter whose runs belong to {@code root}: every activity of them
   * refuses to run on a worker that serves another root ({@link StorageRootCheck}).
   */
  public static WorkflowClient client(
      WorkflowServiceStubs stubs, String namespace, StorageRoot root) {
    return WorkflowClient.newInstance(stubs, clientOptions(namespace, root).build());
  }

  private static WorkflowClientOptions.Builder clientOptions(String namespace, StorageRoot root) {
    return WorkflowClientOptions.newBuilder()
        .setNamespace(namespace)
        .setDataConverter(new RejectedInputMarksThePipeline(KeelDataConverter.get()))
        .setContextPropagators(List.of(new StorageRootPropagator(root)));
  }

  /** Stubs for a command that talks to Temporal and ends (no metrics). */
  public static WorkflowServiceStubs connect(String address) {
    return WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(address).build());
  }

  /**
   * Stubs for a long-running process: Temporal's client and worker metrics go to {@link
   * KeelMetrics}.
   */
  public static WorkflowServiceStubs connectReporting(String address) {
    return WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder()
            .setTarget(address)
            .setMetricsScope(KeelMetrics.temporalScope())
            .build());
  }

  public static KeelWorkerHost start(WorkerHostOptions options) {
    if (options.roles().contains(Role.CONTROL)) {
      SearchAttributeRegistrar.ensureRegistered(
          options.temporalAddress(), options.namespace(), Duration.ofSeconds(60));
    }
    WorkflowServiceStubs stubs = connectReporting(options.temporalAddress());
    WorkflowClientOptions.Builder clientOptions =
        clientOptions(options.namespace(), options.storageRoot());
    options.identity().ifPresent(clientOptions::setIdentity);
    WorkflowClient client = WorkflowClient.newInstance(stubs, clientOptions.build());
    WorkerFactoryOptions factoryOptions =
        WorkerFactoryOptions.newBuilder()
            .setWorkerInterceptors(
                new StorageRootCheck(options.storageRoot()),
                new ActivityMetrics(),
                new LogContext())
            .build();
    if (options.roles().contains(Role.CONTROL)) {
      // Before anything polls: a run's first workflow task must not spend Temporal's 1 s deadlock
      // window
      // loading classes (it failed with PotentialDeadlockException on busy machines, then was
      // retried).
      // Through stubs without metrics: the warm-up's runs are no runs of this worker's.
      WorkflowServiceStubs unmetered = connect(options.temporalAddress());
      try {
        WorkflowWarmUp.run(
            WorkflowClient.newInstance(unmetered, client.getOptions()), factoryOptions);
      } finally {
        unmetered.shutdownNow();
      }
    }
    WorkerFactory factory = WorkerFactory.newInstance(client, factoryOptions);
    ActivityWiring wiring = new ActivityWiring(options);
    if (options.roles().contains(Role.CONTROL)) {
      Worker control = factory.newWorker(TaskQueues.CONTROL, workerOptions(options, 0));
      KeelWorkflows.register(control);
      // catalog commits and checkpoint GC: light, so they share keel-control with the workflows
      serve(
          control,
          wiring.catalog(),
          wiring.checkpointGc(),
          wiring.modelRegistry(),
          wiring.drift(),
          wiring.schedules(stubs),
          wiring.poolDemand(client),
          wiring.poolCapacity());
    }
    if (options.roles().contains(Role.ETL)) {
      serve(factory.newWorker(TaskQueues.ETL, workerOptions(options, 1)), wiring.ingest());
    }
    if (options.roles().contains(Role.TRAIN)) {
      // One Train activity at a time: the trainer serializes runs per JVM anyway (DJL allows one
      // active
      // gradient collector per process), so a second one would only wait while its heartbeats ran.
      // More
      // slots on one machine are more processes (WorkerCommand starts them).
      serve(
          factory.newWorker(TaskQueues.train(options.trainPool()), workerOptions(options, 1)),
          wiring.training());
    }
    InferenceActivitiesImpl inference = null;
    if (options.roles().contains(Role.INFER)) {
      inference = wiring.inference();
      serve(
          factory.newWorker(
              TaskQueues.INFER, workerOptions(options, InferenceActivitiesImpl.ACTIVITY_SLOTS)),
          inference);
    }
    factory.start();
    log.info(
        "Keel workers {} polling {} as {} (storage {})",
        options.roles(),
        options.temporalAddress(),
        client.getOptions().getIdentity(),
        options.storageRoot());
    return new KeelWorkerHost(stubs, client, factory, inference);
  }

  /**
   * Registers the activities on {@code worker}, and their meters at zero ({@link
   * ActivityMetrics#served}).
   */
  private static void serve(Worker worker, Object... activities) {
    worker.registerActivitiesImplementations(activities);
    ActivityMetrics.served(worker.getTaskQueue(), activities);
  }

  private static WorkerOptions workerOptions(WorkerHostOptions options, int activitySlots) {
    WorkerOptions.Builder b =
        WorkerOptions.newBuilder()
            .setMaxHeartbeatThrottleInterval(HEARTBEAT_THROTTLE)
            .setDefaultHeartbeatThrottleInterval(HEARTBEAT_THROTTLE);
    if (activitySlots > 0) {
      b.setMaxConcurrentActivityExecutionSize(activitySlots);
    }
    if (options.devServer()) {
      // The Java test server never expires a dead worker's sticky queue: a killed worker would
      // strand
      // its workflows. Only for it:
      // a real server (including `temporal server start-dev`) expires sticky queues itself.
      b.setStickyQueueScheduleToStartTimeout(Duration.ZERO);
    }
    return b.build();
  }

  public WorkflowClient client() {
    return client;
  }

  public WorkflowServiceStubs stubs() {
    return stubs;
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(10, TimeUnit.SECONDS);
    factory.shutdownNow();
    if (inference != null) {
      inference.close();
    }
    stubs.shutdown();
  }
}
