package dev.keel.service.worker;

import com.google.protobuf.Message;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import com.google.protobuf.util.Durations;
import dev.keel.api.config.Splits;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.DataSpec;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentRequest;
import dev.keel.api.v1.ExperimentRunOptions;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.Length;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.api.v1.PoolProvisionerRequest;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrialRequest;
import dev.keel.search.ExperimentConfigLoaders;
import dev.keel.search.SearchMethods;
import dev.keel.workflows.KeelWorkflows;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import dev.keel.workflows.experiment.TrialWorkflow;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import dev.keel.workflows.pool.PoolProvisionerWorkflow;
import io.temporal.api.command.v1.Command;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowType;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.History;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.WorkflowExecutionStartedEventAttributes;
import io.temporal.api.history.v1.WorkflowTaskCompletedEventAttributes;
import io.temporal.api.history.v1.WorkflowTaskScheduledEventAttributes;
import io.temporal.api.history.v1.WorkflowTaskStartedEventAttributes;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DataConverter;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads what Keel's workflow code needs before a control worker polls. Temporal fails a workflow
 * task whose workflow thread runs for over 1 s without yielding (a {@code
 * PotentialDeadlockException}, TMPRL1101); on a busy machine the first task of a run spent longer
 * than that loading and initialising classes (the workflow classes, Keel's protobuf messages and
 * their JSON mapping, the data converter, Temporal's state machines), failed once and was retried.
 * So before polling: the first task of every Keel workflow type runs once, by replay on a worker
 * that never polls (its deadlock detection relaxed: it may be slow), and the classes workflow
 * threads reach later (the searchers, the rest of the workflow code, every Keel message, Temporal's
 * workflow runtime) are loaded and initialised. A failure here costs only speed: it is logged at
 * debug level.
 */
final class WorkflowWarmUp {
  private static final Logger log = LoggerFactory.getLogger(WorkflowWarmUp.class);
  private static final String TASK_QUEUE = "keel-warm-up";

  /**
   * The classes workflow threads run, by name prefix, each with a class that tells where they are
   * on the class path: Keel's workflows, searchers and messages, protobuf's Struct and Value that
   * the messages embed (hyperparameters), and Temporal's workflow runtime (by name: Keel code uses
   * no {@code io.temporal.internal} class).
   */
  static final Map<String, Class<?>> CLASSES = classes();

  /** A small pipeline with an adaptive searcher: the warm-up's input for every workflow type. */
  private static final String PIPELINE =
      """
      name: keel-warm-up
      source: {format: fashion_mnist, uri: /nonexistent/keel-warm-up}
      target_table: keel_warm_up
      experiment:
        name: keel-warm-up
        hyperparameters:
          lr: {type: log, minval: -3, maxval: -2, base: 10}
          width: {type: int, minval: 8, maxval: 16}
          optimizer: {type: categorical, vals: [adam, sgd]}
          batch_size: 64
        searcher: {name: adaptive_asha, metric: validation_accuracy, smaller_is_better: false, max_trials: 4,
                   max_length: {batches: 64}}
        model: {name: fashion_cnn}
      inference: {split: test}
      """;

  private WorkflowWarmUp() {}

  private static Map<String, Class<?>> classes() {
    Map<String, Class<?>> c = new LinkedHashMap<>();
    c.put("dev.keel.workflows.", KeelWorkflows.class);
    c.put("dev.keel.search.", SearchMethods.class);
    c.put("dev.keel.api.v1.", PipelineRequest.class);
    c.put("com.google.protobuf.Struct", Struct.class);
    c.put("com.google.protobuf.Value", Struct.class);
    c.put("com.google.protobuf.ListValue", Struct.class);
    c.put("io.temporal.workflow.", Worker.class);
    c.put("io.temporal.internal.sync.", Worker.class);
    c.put("io.temporal.internal.statemachines.", Worker.class);
    c.put("io.temporal.internal.replay.", Worker.class);
    // commands a first task may issue that the replayed ones did not, e.g. a version marker
    // (Workflow.getVersion)
    c.put("io.temporal.api.command.v1.", Command.class);
    return c;
  }

  /**
   * What the warm-up did: the workflow types whose first task ran, and how many classes it loaded.
   */
  record Result(List<String> replayed, int classes) {}

  /**
   * Runs the warm-up with the client's data converter and the factory options of the workers that
   * will poll (their interceptors take part in the replayed tasks).
   */
  static Result run(WorkflowClient client, WorkerFactoryOptions factoryOptions) {
    long started = System.nanoTime();
    List<String> replayed = replayFirstTasks(client, factoryOptions);
    int classes = 0;
    for (Map.Entry<String, Class<?>> p : CLASSES.entrySet()) {
      classes += initialise(p.getKey(), p.getValue());
    }
    log.debug(
        "workflow warm-up: first tasks of {} replayed, {} classes loaded in {} ms",
        replayed,
        classes,
        (System.nanoTime() - started) / 1_000_000);
    return new Result(replayed, classes);
  }

  private static List<String> replayFirstTasks(
      WorkflowClient client, WorkerFactoryOptions factoryOptions) {
    DataConverter converter = client.getOptions().getDataConverter();
    WorkerFactory factory = WorkerFactory.newInstance(client, factoryOptions);
    List<String> replayed = new ArrayList<>();
    try {
      // Never started, so it never polls; replays run on the caller's thread and this worker's
      // workflow threads.
      Worker worker =
          factory.newWorker(
              TASK_QUEUE,
              WorkerOptions.newBuilder()
                  .setDefaultDeadlockDetectionTimeout(Duration.ofMinutes(5).toMillis())
                  .build());
      KeelWorkflows.register(worker);
      for (FirstTask first : inputs()) {
        try {
          worker.replayWorkflowExecution(
              firstTask(first.type(), converter.toPayloads(first.input()).orElseThrow()));
          replayed.add(first.type());
        } catch (Exception e) {
          log.debug(
              "workflow warm-up: the first task of {} failed (only its speed suffers): {}",
              first.type(),
              e.toString());
        }
      }
    } catch (RuntimeException e) {
      log.debug("workflow warm-up: no replay worker: {}", e.toString());
    } finally {
      factory.shutdownNow();
    }
    return replayed;
  }

  /** A workflow type and an input its first task runs on. */
  record FirstTask(String type, Message input) {}

  /**
   * Inputs for the first task of each Keel workflow type, all built from {@link #PIPELINE}; the
   * experiment twice: with the catalog its first task asks for the table, without it starts its
   * trials.
   */
  static List<FirstTask> inputs() {
    PipelineRequest pipeline = ExperimentConfigLoaders.pipelineLoader().fromYaml(PIPELINE);
    TableRef table =
        TableRef.newBuilder()
            .setUri("file:///nonexistent/keel-warm-up/tables/keel_warm_up")
            .setVersion(0)
            .build();
    CheckpointRef checkpoint =
        CheckpointRef.newBuilder()
            .setUri("file:///nonexistent/keel-warm-up/checkpoints/c")
            .setExperimentId("keel-warm-up")
            .setTrialId("1")
            .setBatches(64)
            .build();
    // as the pipeline hands it on: with its table
    ExperimentConfig config =
        pipeline.getExperiment().toBuilder()
            .setData(DataSpec.newBuilder().setTable(table.getUri()))
            .build();
    ExperimentRequest experiment = ExperimentRequest.newBuilder().setConfig(config).build();
    return List.of(
        new FirstTask(PipelineWorkflow.TYPE, pipeline),
        new FirstTask(ExperimentWorkflow.TYPE, experiment),
        new FirstTask(
            ExperimentWorkflow.TYPE,
            experiment.toBuilder()
                .setOptions(ExperimentRunOptions.newBuilder().setWithoutCatalog(true))
                .build()),
        new FirstTask(
            TrialWorkflow.TYPE,
            TrialRequest.newBuilder()
                .setExperimentId("keel-warm-up")
                .setTrialId(1)
                .setConfig(config)
                .setData(table)
                .setTrainRows(1_000)
                .putHparams("lr", Value.newBuilder().setNumberValue(0.003).build())
                .putHparams("width", Value.newBuilder().setNumberValue(8).build())
                .putHparams("optimizer", Value.newBuilder().setStringValue("adam").build())
                .putHparams("batch_size", Value.newBuilder().setNumberValue(64).build())
                .setTargetLength(Length.newBuilder().setBatches(16))
                .build()),
        new FirstTask(
            "Inference",
            InferenceRequest.newBuilder()
                .setCheckpoint(checkpoint)
                .setData(table)
                .setSplit(Splits.TEST)
                .setModel(pipeline.getExperiment().getModel())
                .build()),
        new FirstTask(
            PoolProvisionerWorkflow.TYPE,
            PoolProvisionerRequest.newBuilder()
                .setSpec(PoolSpec.newBuilder().setName("keel-warm-up").setSlotsPerInstance(1))
                .build()));
  }

  /**
   * The history of a run of {@code type} up to its first workflow task, started with {@code input}.
   */
  static WorkflowExecutionHistory firstTask(String type, Payloads input) {
    String runId = UUID.randomUUID().toString();
    Timestamp now = Timestamp.newBuilder().setSeconds(System.currentTimeMillis() / 1000).build();
    TaskQueue queue = TaskQueue.newBuilder().setName(TASK_QUEUE).build();
    History history =
        History.newBuilder()
            .addEvents(
                HistoryEvent.newBuilder()
                    .setEventId(1)
                    .setEventTime(now)
                    .setEventType(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)
                    .setWorkflowExecutionStartedEventAttributes(
                        WorkflowExecutionStartedEventAttributes.newBuilder()
                            .setWorkflowType(WorkflowType.newBuilder().setName(type))
                            .setTaskQueue(queue)
                            .setInput(input)
                            .setWorkflowTaskTimeout(Durations.fromSeconds(10))
                            .setAttempt(1)
                            .setOriginalExecutionRunId(runId)
                            .setFirstExecutionRunId(runId)
                            .setIdentity(TASK_QUEUE)))
            .addEvents(
                HistoryEvent.newBuilder()
                    .setEventId(2)
                    .setEventTime(now)
                    .setEventType(EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED)
                    .setWorkflowTaskScheduledEventAttributes(
                        WorkflowTaskScheduledEventAttributes.newBuilder()
                            .setTaskQueue(queue)
                            .setStartToCloseTimeout(Durations.fromSeconds(10))
                            .setAttempt(1)))
            .addEvents(
                HistoryEvent.newBuilder()
                    .setEventId(3)
                    .setEventTime(now)
                    .setEventType(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)
                    .setWorkflowTaskStartedEventAttributes(
                        WorkflowTaskStartedEventAttributes.newBuilder()
                            .setScheduledEventId(2)
                            .setIdentity(TASK_QUEUE)
                            .setRequestId(runId)))
            // completed: a replay runs the workflow code of completed tasks only
            .addEvents(
                HistoryEvent.newBuilder()
                    .setEventId(4)
                    .setEventTime(now)
                    .setEventType(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
                    .setWorkflowTaskCompletedEventAttributes(
                        WorkflowTaskCompletedEventAttributes.newBuilder()
                            .setScheduledEventId(2)
                            .setStartedEventId(3)
                            .setIdentity(TASK_QUEUE)))
            .build();
    return new WorkflowExecutionHistory(history, TASK_QUEUE + "-" + type);
  }

  /**
   * Loads and initialises every class whose name starts with {@code prefix} that sits where {@code
   * anchor} was loaded from (a directory or a jar); returns how many.
   */
  static int initialise(String prefix, Class<?> anchor) {
    ClassLoader loader = anchor.getClassLoader();
    int loaded = 0;
    for (String name : classNames(prefix, anchor)) {
      try {
        Class.forName(name, true, loader);
        loaded++;
      } catch (ClassNotFoundException | LinkageError optional) {
        // a class for a library this process leaves out (the control worker runs without DJL)
      }
    }
    return loaded;
  }

  static Set<String> classNames(String prefix, Class<?> anchor) {
    String path = prefix.replace('.', '/');
    Set<String> names = new LinkedHashSet<>();
    try {
      Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isDirectory(location)) {
        Path dir = location.resolve(path.substring(0, path.lastIndexOf('/') + 1));
        if (Files.isDirectory(dir)) {
          try (Stream<Path> files = Files.walk(dir)) {
            files
                .map(f -> location.relativize(f).toString().replace('\\', '/'))
                .filter(f -> f.startsWith(path))
                .forEach(f -> addClass(f, names));
          }
        }
      } else {
        try (JarFile jar = new JarFile(location.toFile())) {
          jar.stream()
              .map(e -> e.getName())
              .filter(n -> n.startsWith(path))
              .forEach(n -> addClass(n, names));
        }
      }
    } catch (IOException | URISyntaxException | RuntimeException e) {
      log.debug("workflow warm-up: cannot list the classes named {}*: {}", prefix, e.toString());
    }
    return names;
  }

  private static void addClass(String path, Set<String> names) {
    if (path.endsWith(".class")
        && !path.endsWith("module-info.class")
        && !path.endsWith("package-info.class")) {
      names.add(path.substring(0, path.length() - ".class".length()).replace('/', '.'));
    }
  }
}
