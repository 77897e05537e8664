package dev.keel.service.schedule;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.activities.TaskQueues;
import dev.keel.api.temporal.KeelDataConverter;
import dev.keel.api.v1.PipelineRequest;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.ScheduleOverlapPolicy;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionExecutionStartWorkflow;
import io.temporal.client.schedules.ScheduleActionResult;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import io.temporal.client.schedules.ScheduleDescription;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.client.schedules.ScheduleListActionStartWorkflow;
import io.temporal.client.schedules.ScheduleListDescription;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.client.schedules.SchedulePolicy;
import io.temporal.client.schedules.ScheduleSpec;
import io.temporal.client.schedules.ScheduleState;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Scheduled retraining on a Temporal Schedule (needs a real Temporal server: the CLI's dev server
 * or a cluster; the Java test server has no Schedule API). Each action starts the pipeline workflow
 * with id {@code pipeline-<name>-<scheduled time>} on {@code keel-control}.
 */
public final class PipelineSchedules {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ScheduleClient client;

  public PipelineSchedules(WorkflowServiceStubs stubs, String namespace) {
    this.client =
        ScheduleClient.newInstance(
            stubs,
            ScheduleClientOptions.newBuilder()
                .setNamespace(namespace)
                .setDataConverter(KeelDataConverter.get())
                .build());
  }

  /**
   * {@code skip}, {@code buffer-one}, {@code buffer-all}, {@code cancel-other}, {@code
   * terminate-other}, {@code allow-all}.
   */
  public static ScheduleOverlapPolicy overlap(String name) {
    String n = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    try {
      return ScheduleOverlapPolicy.valueOf("SCHEDULE_OVERLAP_POLICY_" + n);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--overlap: unknown policy '"
              + name
              + "' (skip, buffer-one, buffer-all, cancel-other, terminate-other, allow-all)");
    }
  }

  /**
   * One schedule of the namespace as {@code keel schedule list} and {@code GET /api/v1/schedules}
   * show it.
   */
  public record Listed(
      String scheduleId,
      String workflowType,
      boolean paused,
      String note,
      List<Instant> nextActionTimes,
      int recentActions) {}

  /**
   * Every schedule of the namespace, by id.
   *
   * @throws IllegalStateException naming the reason when the server has no Schedule API (the Java
   *     test server)
   */
  public List<Listed> list() {
    try (Stream<ScheduleListDescription> all = client.listSchedules()) {
      return all.map(
              d ->
                  new Listed(
                      d.getScheduleId(),
                      d.getSchedule().getAction() instanceof ScheduleListActionStartWorkflow w
                          ? w.getWorkflow()
                          : "",
                      d.getSchedule().getState().isPaused(),
                      d.getSchedule().getState().getNote(),
                      d.getInfo().getNextActionTimes().stream().limit(3).toList(),
                      d.getInfo().getRecentActions().size()))
          .sorted(Comparator.comparing(Listed::scheduleId))
          .toList();
    } catch (RuntimeException e) {
      if (unimplemented(e)) {
        throw new IllegalStateException(NO_SCHEDULES, e);
      }
      throw e;
    }
  }

  /** What a server without a Schedule API (the Java test server) means for a user. */
  public static final String NO_SCHEDULES =
      "this Temporal server has no Schedules (the embedded Java test server):"
          + " use keel dev --temporal cli or a cluster";

  /**
   * Whether {@code e} says the server does not implement the call (the Java test server's Schedule
   * API).
   */
  public static boolean unimplemented(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof StatusRuntimeException s
          && s.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        return true;
      }
    }
    return false;
  }

  /** {@code {"schedules": [...]}}. */
  public static String json(List<Listed> schedules) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Listed l : schedules) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("schedule_id", l.scheduleId());
      row.put("workflow_type", l.workflowType());
      row.put("paused", l.paused());
      row.put("note", l.note());
      row.put("next_action_times", l.nextActionTimes().stream().map(Instant::toString).toList());
      row.put("recent_actions", l.recentActions());
      rows.add(row);
    }
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(Map.of("schedules", rows));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Aligned columns, one schedule per line. */
  public static String table(List<Listed> schedules) {
    if (schedules.isEmpty()) {
      return "no schedules in this namespace\n";
    }
    int idWidth =
        Math.max(
            "SCHEDULE".length(),
            schedules.stream().mapToInt(l -> l.scheduleId().length()).max().orElse(0));
    String format = "%-" + idWidth + "s  %-8s  %-7s  %-20s  %6s  %s%n";
    StringBuilder out =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                format,
                "SCHEDULE",
                "WORKFLOW",
                "STATE",
                "NEXT (UTC)",
                "RECENT",
                "NOTE"));
    for (Listed l : schedules) {
      out.append(
          String.format(
              Locale.ROOT,
              format,
              l.scheduleId(),
              l.workflowType(),
              l.paused() ? "paused" : "active",
              l.nextActionTimes().isEmpty()
                  ? ""
                  : l.nextActionTimes().get(0).toString().replace('T', ' ').substring(0, 19),
              l.recentActions(),
              l.note()));
    }
    return out.toString();
  }

  /** Creates a schedule that starts {@code request} on every cron time. */
  public ScheduleHandle create(
      String scheduleId,
      PipelineRequest request,
      List<String> cron,
      ScheduleOverlapPolicy overlap,
      boolean paused,
      String note) {
    String name =
        request.getName().isBlank()
            ? "unnamed"
            : request.getName().replaceAll("[^A-Za-z0-9_.-]", "-");
    ScheduleActionStartWorkflow action =
        ScheduleActionStartWorkflow.newBuilder()
            .setWorkflowType(PipelineWorkflow.TYPE)
            .setArguments(request)
            .setOptions(
                WorkflowOptions.newBuilder()
                    .setWorkflowId("pipeline-" + name)
                    .setTaskQueue(TaskQueues.CONTROL)
                    // No static summary here: SDK 1.38 cannot read a schedule back whose action has
                    // one
                    // (DataConverterException in ScheduleProtoUtil.protoToAction); the workflow's
                    // current
                    // details and search attributes say what the run is.
                    .build())
            .build();
    Schedule schedule =
        Schedule.newBuilder()
            .setAction(action)
            .setSpec(ScheduleSpec.newBuilder().setCronExpressions(cron).build())
            .setPolicy(SchedulePolicy.newBuilder().setOverlap(overlap).build())
            .setState(
                ScheduleState.newBuilder()
                    .setPaused(paused)
                    .setNote(note != null ? note : "Keel retraining of pipeline " + name)
                    .build())
            .build();
    return client.createSchedule(scheduleId, schedule, ScheduleOptions.newBuilder().build());
  }

  public ScheduleHandle handle(String scheduleId) {
    return client.getHandle(scheduleId);
  }

  public void pause(String scheduleId, String note) {
    handle(scheduleId).pause(note == null ? "paused with keel schedule pause" : note);
  }

  public void unpause(String scheduleId, String note) {
    handle(scheduleId).unpause(note == null ? "unpaused with keel schedule unpause" : note);
  }

  /** Starts one run now (even when paused), with the schedule's overlap policy. */
  public void trigger(String scheduleId) {
    handle(scheduleId).trigger();
  }

  public void delete(String scheduleId) {
    handle(scheduleId).delete();
  }

  public ScheduleDescription describe(String scheduleId) {
    return handle(scheduleId).describe();
  }

  /** Workflow ids of the schedule's recent runs, oldest first. */
  public static List<String> recentWorkflowIds(ScheduleDescription d) {
    List<String> ids = new ArrayList<>();
    for (ScheduleActionResult r : d.getInfo().getRecentActions()) {
      if (r.getAction() instanceof ScheduleActionExecutionStartWorkflow w) {
        ids.add(w.getWorkflowId());
      }
    }
    return ids;
  }

  /** Human-readable summary for {@code keel schedule describe}. */
  public static String format(ScheduleDescription d) {
    StringBuilder b = new StringBuilder();
    ScheduleState state = d.getSchedule().getState();
    b.append("schedule   ").append(d.getId()).append('\n');
    b.append("state      ").append(state.isPaused() ? "paused" : "active");
    if (state.getNote() != null && !state.getNote().isEmpty()) {
      b.append(" (").append(state.getNote()).append(')');
    }
    b.append('\n');
    // The server stores cron strings as calendar and interval specs.
    ScheduleSpec spec = d.getSchedule().getSpec();
    b.append("spec       ");
    spec.getIntervals().forEach(i -> b.append("every ").append(i.getEvery()).append(' '));
    spec.getCalendars()
        .forEach(
            c ->
                b.append("calendar ")
                    .append(c.getComment().isEmpty() ? "(cron)" : c.getComment())
                    .append(' '));
    spec.getCronExpressions().forEach(c -> b.append("cron '").append(c).append("' "));
    b.append('\n');
    b.append("overlap    ")
        .append(
            d.getSchedule()
                .getPolicy()
                .getOverlap()
                .name()
                .replace("SCHEDULE_OVERLAP_POLICY_", "")
                .toLowerCase(Locale.ROOT)
                .replace('_', '-'))
        .append('\n');
    b.append("runs       ")
        .append(d.getInfo().getNumActions())
        .append(" started, ")
        .append(d.getInfo().getNumActionsSkippedOverlap())
        .append(" skipped (overlap)\n");
    for (ScheduleActionResult r : d.getInfo().getRecentActions()) {
      if (r.getAction() instanceof ScheduleActionExecutionStartWorkflow w) {
        b.append("  ").append(r.getStartedAt()).append("  ").append(w.getWorkflowId()).append('\n');
      }
    }
    b.append("next       ")
        .append(
            state.isPaused()
                ? "(paused)"
                : d.getInfo().getNextActionTimes().stream()
                    .limit(3)
                    .map(Object::toString)
                    .reduce((x, y) -> x + ", " + y)
                    .orElse("-"))
        .append('\n');
    return b.toString();
  }
}
