package dev.keel.service.pipeline;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Timestamp;
import dev.keel.service.listing.Filter;
import dev.keel.service.visibility.WorkflowListing;
import dev.keel.tables.catalog.Paging;
import dev.keel.workflows.KeelSearchAttributes;
import dev.keel.workflows.pipeline.PipelineWorkflow;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.client.WorkflowClient;
import io.temporal.common.converter.DefaultDataConverter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pipelines Temporal knows in the client's namespace (within its retention), newest first, with
 * the stage each is in or ended in (Keel's search attributes), listed by {@link WorkflowListing}.
 */
public final class PipelineList {
  /** One pipeline run. */
  public record Summary(
      String pipelineId,
      String status,
      Instant started,
      Instant closed,
      String stage,
      String dataTable,
      Double testAccuracy) {}

  /** One page and how many matched in all. */
  public record Page(List<Summary> pipelines, int total, int offset, int limit) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> STATUSES =
      Set.of(
          "running",
          "completed",
          "failed",
          "canceled",
          "terminated",
          "timed_out",
          "continued_as_new");

  private PipelineList() {}

  /**
   * @param status only pipelines in this status (running, completed, failed, ...), any case
   * @throws IllegalArgumentException for an unknown status or bad paging, naming the parameter
   */
  public static Page page(WorkflowClient client, Optional<String> status, int offset, int limit) {
    Paging.check(offset, limit);
    Optional<String> wanted =
        Filter.oneOf("status", status, STATUSES).map(s -> s.toLowerCase(Locale.ROOT));
    List<Summary> all = new ArrayList<>();
    for (WorkflowExecutionInfo info :
        WorkflowListing.detailedExecutions(client, PipelineWorkflow.TYPE, false)) {
      Summary s = summary(info);
      if (wanted.isEmpty() || wanted.get().equals(s.status())) {
        all.add(s);
      }
    }
    all.sort(Comparator.comparing(Summary::started).reversed().thenComparing(Summary::pipelineId));
    return new Page(Paging.slice(all, offset, limit), all.size(), offset, limit);
  }

  /**
   * {@code {"pipelines": [...], "total", "offset", "limit"}}: what GET /api/v1/pipelines and keel
   * pipeline list --json print.
   */
  public static String json(Page page) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("pipelines", page.pipelines().stream().map(PipelineList::row).toList());
    out.put("total", page.total());
    out.put("offset", page.offset());
    out.put("limit", page.limit());
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Aligned columns and a last line saying which of how many are shown. */
  public static String table(Page page) {
    int idWidth =
        Math.max(
            "PIPELINE".length(),
            page.pipelines().stream().mapToInt(p -> p.pipelineId().length()).max().orElse(0));
    String format = "%-" + idWidth + "s  %-10s  %-20s  %-20s  %-14s  %8s  %s%n";
    StringBuilder out =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                format,
                "PIPELINE",
                "STATUS",
                "STARTED (UTC)",
                "CLOSED (UTC)",
                "STAGE",
                "TEST ACC",
                "DATA"));
    for (Summary p : page.pipelines()) {
      out.append(
          String.format(
              Locale.ROOT,
              format,
              p.pipelineId(),
              p.status(),
              time(p.started()),
              time(p.closed()),
              p.stage() == null ? "" : p.stage(),
              p.testAccuracy() == null ? "" : String.format(Locale.ROOT, "%.4f", p.testAccuracy()),
              p.dataTable() == null ? "" : p.dataTable()));
    }
    int shownTo = page.offset() + page.pipelines().size();
    out.append(
        page.total() == 0
            ? "no pipelines in this namespace\n"
            : String.format(
                Locale.ROOT,
                "%d-%d of %d%n",
                Math.min(page.offset() + 1, shownTo),
                shownTo,
                page.total()));
    return out.toString();
  }

  private static Map<String, Object> row(Summary s) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("pipeline_id", s.pipelineId());
    out.put("status", s.status());
    out.put("started", s.started().toString());
    if (s.closed() != null) {
      out.put("closed", s.closed().toString());
    }
    if (s.stage() != null) {
      out.put("stage", s.stage());
    }
    if (s.dataTable() != null) {
      out.put("data_table", s.dataTable());
    }
    if (s.testAccuracy() != null) {
      out.put("test_accuracy", s.testAccuracy());
    }
    return out;
  }

  private static Summary summary(WorkflowExecutionInfo info) {
    Map<String, Payload> attributes = info.getSearchAttributes().getIndexedFieldsMap();
    return new Summary(
        info.getExecution().getWorkflowId(),
        status(info.getStatus()),
        instant(info.getStartTime()),
        info.hasCloseTime() ? instant(info.getCloseTime()) : null,
        attribute(attributes, KeelSearchAttributes.STAGE.getName(), String.class),
        attribute(attributes, KeelSearchAttributes.DATA_TABLE.getName(), String.class),
        attribute(attributes, KeelSearchAttributes.TEST_ACCURACY.getName(), Double.class));
  }

  private static String status(WorkflowExecutionStatus s) {
    return s.name().substring("WORKFLOW_EXECUTION_STATUS_".length()).toLowerCase(Locale.ROOT);
  }

  private static <T> T attribute(Map<String, Payload> attributes, String name, Class<T> type) {
    Payload p = attributes.get(name);
    return p == null ? null : DefaultDataConverter.STANDARD_INSTANCE.fromPayload(p, type, type);
  }

  private static Instant instant(Timestamp t) {
    return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
  }

  private static String time(Instant t) {
    return t == null ? "" : t.toString().replace('T', ' ').substring(0, 19);
  }
}
