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
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The workers polling Keel's task queues, as Temporal sees them (its pollers of the last minutes): each
 * worker by identity with the queues it polls, and per training pool the slots (a training slot is one
 * process polling {@code keel-train-<pool>}).
 */
public final class KeelWorkers {
  private static final ObjectMapper JSON = new ObjectMapper();

  private KeelWorkers() {}

  /**
   * {@code {"workers": [{"identity", "task_queues", "last_access_time"}], "pools": {"<pool>": {"slots": N}}}}.
   *
   * @throws IllegalStateException when the server cannot describe task queues (the Java test server)
   */
  public static String json(WorkflowClient client, List<String> pools) {
    Map<String, TreeSet<String>> queuesOf = new TreeMap<>();
    Map<String, Instant> lastSeen = new TreeMap<>();
    Map<String, Object> poolSlots = new LinkedHashMap<>();
    for (String queue : List.of(TaskQueues.CONTROL, TaskQueues.ETL, TaskQueues.INFER)) {
      poll(client, queue, queuesOf, lastSeen);
    }
    for (String pool : pools) {
      poolSlots.put(pool, Map.of("slots", poll(client, TaskQueues.train(pool), queuesOf, lastSeen).size()));
    }
    List<Map<String, Object>> workers = new ArrayList<>();
    queuesOf.forEach((identity, qs) -> {
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

  /** Records who polls {@code queue} (workflow or activity tasks) and returns their identities. */
  private static TreeSet<String> poll(WorkflowClient client, String queue, Map<String, TreeSet<String>> queuesOf,
      Map<String, Instant> lastSeen) {
    TreeSet<String> pollers = new TreeSet<>();
    for (TaskQueueType type : List.of(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)) {
      for (PollerInfo p : pollers(client, queue, type)) {
        pollers.add(p.getIdentity());
        queuesOf.computeIfAbsent(p.getIdentity(), i -> new TreeSet<>()).add(queue);
        lastSeen.merge(p.getIdentity(), instant(p.getLastAccessTime()), (a, b) -> a.isAfter(b) ? a : b);
      }
    }
    return pollers;
  }

  private static List<PollerInfo> pollers(WorkflowClient client, String queue, TaskQueueType type) {
    try {
      return client.getWorkflowServiceStubs().blockingStub().describeTaskQueue(DescribeTaskQueueRequest.newBuilder()
          .setNamespace(client.getOptions().getNamespace()).setTaskQueue(TaskQueue.newBuilder().setName(queue))
          .setTaskQueueType(type).build()).getPollersList();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        throw new IllegalStateException("this Temporal server cannot describe task queues (the embedded Java test"
            + " server): use keel dev --temporal cli or a cluster", e);
      }
      throw e;
    }
  }

  private static Instant instant(Timestamp t) {
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }
}
