package dev.keel.service.visibility;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Timestamp;
import dev.keel.activities.TaskQueues;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.PollerInfo;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The workers polling Keel's task queues, as Temporal sees them (its pollers of the last minutes):
 * each worker by identity with the queues it polls, and per training pool the slots (a training
 * slot is one process polling {@code keel-train-<pool>}).
 */
public final class KeelWorkers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private KeelWorkers() {}

  /**
   * {@code {"workers": [{"identity", "task_queues", "last_access_time"}], "pools": {"<pool>":
   * {"slots": N}}}}.
   *
   * @throws IllegalStateException when the server cannot describe task queues (the Java test
   *     server)
   */
  public static String json(WorkflowClient client, List<String> pools) {
    Map<String, NavigableSet<String>> queuesOf = new TreeMap<>();
    Map<String, Instant> lastSeen = new TreeMap<>();
    Map<String, Object> poolSlots = new LinkedHashMap<>();
    for (String queue : List.of(TaskQueues.CONTROL, TaskQueues.ETL, TaskQueues.INFER)) {
      poll(client, queue, queuesOf, lastSeen);
    }
    for (String pool : pools) {
      poolSlots.put(
          pool, Map.of("slots", poll(client, TaskQueues.train(pool), queuesOf, lastSeen).size()));
    }
    List<Map<String, Object>> workers = new ArrayList<>();
    queuesOf.forEach(
        (identity, qs) -> {
          Map<String, Object> w = new LinkedHashMap<>();
          w.put("identity", identity);
          w.put("task_queues", List.copyOf(qs));
          w.put("last_access_time", lastSeen.get(identity).toString());
          workers.add(w);
        });
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("workers", workers);
    out.put("pools", poolSlots);
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The training slots of {@code pool} (processes polling {@code keel-train-<pool>} for
   * activities), or empty when the server cannot tell (the embedded Java test server describes no
   * task queues).
   */
  public static Optional<Integer> trainSlots(WorkflowClient client, String pool) {
    try {
      return Optional.of(
          (int)
              pollers(client, TaskQueues.train(pool), TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)
                  .stream()
                  .map(PollerInfo::getIdentity)
                  .distinct()
                  .count());
    } catch (IllegalStateException e) {
      return Optional.empty();
    }
  }

  /**
   * A warning for whoever submits trials of {@code slotsPerTrial} slots to {@code pool} when too
   * few workers poll it to start one: the trials would only wait. Empty when enough do or the
   * server cannot tell.
   */
  public static Optional<String> slotWarning(
      WorkflowClient client, String pool, int slotsPerTrial) {
    Optional<Integer> slots = trainSlots(client, pool);
    if (slots.isEmpty() || slots.get() >= slotsPerTrial) {
      return Optional.empty();
    }
    String queue = TaskQueues.train(pool);
    return Optional.of(
        (slots.get() == 0
                ? "no worker polls " + queue
                : slots.get()
                    + " worker"
                    + (slots.get() == 1 ? " polls " : "s poll ")
                    + queue
                    + ", but a trial needs "
                    + slotsPerTrial
                    + " slots at once")
            + ": its trials wait for slots until "
            + (slots.get() == 0 ? "one does" : "enough do")
            + " (start one with keel worker --roles TRAIN --pool "
            + pool
            + ")");
  }

  /** Records who polls {@code queue} (workflow or activity tasks) and returns their identities. */
  private static NavigableSet<String> poll(
      WorkflowClient client,
      String queue,
      Map<String, NavigableSet<String>> queuesOf,
      Map<String, Instant> lastSeen) {
    NavigableSet<String> pollers = new TreeSet<>();
    for (TaskQueueType type :
        List.of(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)) {
      for (PollerInfo p : pollers(client, queue, type)) {
        pollers.add(p.getIdentity());
        queuesOf.computeIfAbsent(p.getIdentity(), i -> new TreeSet<>()).add(queue);
        lastSeen.merge(
            p.getIdentity(), instant(p.getLastAccessTime()), (a, b) -> a.isAfter(b) ? a : b);
      }
    }
    return pollers;
  }

  private static List<PollerInfo> pollers(WorkflowClient client, String queue, TaskQueueType type) {
    try {
      return client
          .getWorkflowServiceStubs()
          .blockingStub()
          .describeTaskQueue(
              DescribeTaskQueueRequest.newBuilder()
                  .setNamespace(client.getOptions().getNamespace())
                  .setTaskQueue(TaskQueue.newBuilder().setName(queue))
                  .setTaskQueueType(type)
                  .build())
          .getPollersList();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        throw new IllegalStateException(
            "this Temporal server cannot describe task queues (the embedded Java test"
                + " server): use keel dev --temporal cli or a cluster",
            e);
      }
      throw e;
    }
  }

  private static Instant instant(Timestamp t) {
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }
}
