package dev.keel.service.experiment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import dev.keel.activities.TaskQueues;
import dev.keel.api.config.ConfigDefaults;
import dev.keel.api.v1.CatalogRow;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.ExperimentState;
import dev.keel.api.v1.SearcherBracket;
import dev.keel.api.v1.TrialState;
import dev.keel.search.BracketRungs;
import dev.keel.search.SearchPreview;
import dev.keel.search.Searchers;
import dev.keel.service.listing.Filter;
import dev.keel.service.security.AuditLines;
import dev.keel.storage.StorageRoot;
import dev.keel.tables.audit.AuditTable;
import dev.keel.tables.catalog.CatalogTables;
import dev.keel.tables.catalog.ExperimentHistory;
import dev.keel.tables.catalog.ExperimentList;
import dev.keel.tables.catalog.Paging;
import dev.keel.workflows.experiment.ExperimentWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowQueryException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Everything the dashboard shows of one experiment, as one JSON document: the experiment's state
 * and its trials (from the workflow's {@code state} query while Temporal has it, else from the
 * catalog), the learning curves (every validation of the searcher's metric, also those not yet
 * appended to the catalog), the rungs (which trials reached which length, and which went on), and
 * the checkpoints with their GC state. The REST API serves it and streams it as Server-Sent Events.
 */
public final class ExperimentView {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long a reading waits for the workflow's queries. */
  static final Duration QUERY_TIMEOUT = Duration.ofSeconds(10);

  private static final ExecutorService QUERIES =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "keel-experiment-query");
            t.setDaemon(true);
            return t;
          });

  private final WorkflowClient client;
  private final StorageRoot storage;
  private final AuditTable audit;

  public ExperimentView(WorkflowClient client, StorageRoot storage) {
    this.client = client;
    this.storage = storage;
    this.audit = new AuditTable(storage);
  }

  /** One reading of the experiment. */
  public static final class Document {
    private final ObjectNode root;
    private final ExperimentHistory.Records records;

    private Document(ObjectNode root, ExperimentHistory.Records records) {
      this.root = root;
      this.records = records;
    }

    /** The document as a tree (read it, don't change it). */
    public JsonNode tree() {
      return root;
    }

    /** The catalog rows the document was built from, with their times. */
    public ExperimentHistory.Records records() {
      return records;
    }

    public String json() {
      return write(root);
    }

    /**
     * Whether the experiment's workflow has closed (or Temporal no longer has it): its document
     * will not change any more. Its state reads COMPLETED a little earlier, while its last
     * checkpoints are collected.
     */
    public boolean ended() {
      return !root.path("experiment").path("running").asBoolean();
    }

    /**
     * A page of one of the document's lists ({@code trials} or {@code checkpoints}) as {@code
     * {"<list>": [...], "total", "offset", "limit"}}; {@code state} (any case) keeps only the items
     * in that state.
     */
    public String page(String list, String state, int offset, int limit) {
      checkFilter(list, state);
      List<JsonNode> items = new ArrayList<>();
      root.path(list)
          .forEach(
              item -> {
                if (state == null || state.equalsIgnoreCase(item.path("state").asText(""))) {
                  items.add(item);
                }
              });
      ObjectNode out = JSON.createObjectNode();
      out.putArray(list).addAll(Paging.slice(items, offset, limit));
      out.put("total", items.size()).put("offset", offset).put("limit", limit);
      return write(out);
    }
  }

  /** The states a filter of the document's {@code trials} and {@code checkpoints} may name. */
  private static final Map<String, Set<String>> STATES =
      Map.of(
          "trials", Filter.states(TrialState.State.getDescriptor()),
          "checkpoints", Set.of("SAVED", CatalogTables.DELETED));

  /**
   * Checks a filter of {@link Document#page}.
   *
   * @throws IllegalArgumentException naming the states of {@code list} when {@code state} (any
   *     case) is none of them
   */
  public static void checkFilter(String list, String state) {
    Filter.oneOf("state", Optional.ofNullable(state), STATES.getOrDefault(list, Set.of()));
  }

  /**
   * One look at a followed experiment: its changed document, a failed reading, or the experiment
   * gone.
   */
  public sealed interface Reading permits Changed, Problem, Gone {}

  /** The document differs from the one before (the first reading always does). */
  public record Changed(Document document) implements Reading {}

  /** The reading failed (Temporal or the storage briefly away); following goes on. */
  public record Problem(String message) implements Reading {}

  /** Neither Temporal nor the catalog knows the experiment (any more); following ends. */
  public record Gone() implements Reading {}

  /**
   * The experiment looked at every {@code period} on a worker thread: each changed document, then
   * the end once its workflow has closed. What the REST API streams as Server-Sent Events and what
   * {@code keel experiment wait} and {@code logs --follow} print.
   */
  public Flux<Reading> follow(String experimentId, Duration period) {
    AtomicReference<String> last = new AtomicReference<>("");
    return Flux.interval(Duration.ZERO, period)
        .onBackpressureDrop()
        // the readings block on Temporal and the tables: not on the timer's thread
        .publishOn(Schedulers.boundedElastic(), 1)
        .handle(
            (tick, sink) -> {
              Optional<Document> document;
              try {
                document = read(experimentId);
              } catch (RuntimeException e) {
                sink.next(
                    new Problem(
                        "cannot read experiment " + experimentId + " now: " + e.getMessage()));
                return;
              }
              if (document.isEmpty()) {
                sink.next(new Gone());
                sink.complete();
                return;
              }
              if (!document.get().json().equals(last.getAndSet(document.get().json()))) {
                sink.next(new Changed(document.get()));
              }
              if (document.get().ended()) {
                sink.complete();
              }
            });
  }

  /** The experiment as Temporal and the catalog know it now, or empty when neither knows it. */
  public Optional<Document> read(String experimentId) {
    return document(experimentId);
  }

  private Optional<Document> document(String experimentId) {
    // The workflow's status before its rows: once it is closed, its last rows (checkpoint GC's
    // included)
    // are in the tables. The pending rows before the tables: a batch appended in between is then
    // found
    // in both, not in neither.
    Optional<WorkflowExecutionStatus> status = ExperimentLauncher.status(client, experimentId);
    ObjectNode experiment = null;
    List<SearcherBracket> brackets = List.of();
    List<CatalogRow> pending = List.of();
    String unanswered = null;
    if (status.isPresent()) {
      try {
        ExperimentWorkflow stub = ExperimentLauncher.stub(client, experimentId);
        pending = withinQueryTimeout(() -> stub.pendingCatalog().getRowsList());
        ExperimentState state = withinQueryTimeout(stub::state);
        brackets = state.getBracketsList();
        experiment = (ObjectNode) tree(state.toBuilder().clearBrackets());
      } catch (WorkflowNotFoundException | WorkflowQueryException e) {
        // not an experiment workflow, or gone between the two calls: the catalog may still know it
      } catch (TimeoutException e) {
        unanswered =
            "its workflow does not answer (no worker polls "
                + TaskQueues.CONTROL
                + ", or none has run it"
                + " yet): what the catalog holds is shown";
      }
    }
    boolean live = experiment != null;
    ExperimentHistory.Records records;
    Optional<ExperimentConfig> config;
    if (live) {
      records = new ExperimentHistory(storage).read(experimentId, pending);
      config = config(records.configJson());
    } else {
      Optional<ExperimentList.Summary> summary = new ExperimentList(storage).find(experimentId);
      if (summary.isEmpty() && unanswered != null) {
        return Optional.of(unansweredDocument(experimentId, status.get(), unanswered));
      }
      if (summary.isEmpty()) {
        return Optional.empty();
      }
      records = new ExperimentHistory(storage).read(experimentId, pending);
      config = config(records.configJson());
      experiment = catalogSummary(summary.get(), config, records);
    }
    boolean running =
        live && status.get() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    String metric = experiment.path("metric").asText("");
    Optional<SearchPreview> plan = config.flatMap(ExperimentView::plan);
    String unit = plan.map(p -> p.unit().label()).orElse("");
    ObjectNode out = JSON.createObjectNode();
    ArrayNode trials =
        experiment.has("trials")
            ? (ArrayNode) experiment.remove("trials")
            : catalogTrials(records, unit, plan.map(ExperimentView::rungLengths).orElse(Set.of()));
    experiment.put("live", live).put("running", running);
    if (unanswered != null) {
      experiment.put("unanswered", unanswered);
    }
    if (running) {
      markWaits(experiment, trials);
    }
    if (plan.isPresent()) {
      experiment.put("planned_trials", plan.get().trials()).put("unit", unit);
      if (!live) {
        experiment.put(
            "progress", catalogProgress(experiment.path("state").asText(), plan.get(), records));
      }
    }
    if (!live) {
      catalogMetrics(trials, records, metric, experiment.path("smaller_is_better").asBoolean());
    }
    ExperimentRungs rungs =
        new ExperimentRungs(records, metric, experiment.path("smaller_is_better").asBoolean());
    List<BracketRungs> planned = config.map(ExperimentView::brackets).orElse(List.of());
    out.set("experiment", experiment);
    out.set("trials", trials);
    out.set("curves", curves(records, metric));
    if (!brackets.isEmpty()) {
      out.set("rungs", rungs.fromSearcher(brackets));
      out.put("rungs_from", ExperimentRungs.FROM_SEARCHER);
    } else {
      out.set(
          "rungs",
          planned.isEmpty()
              ? rungs.fromLengths(plan.map(ExperimentView::rungLengths).orElse(Set.of()), trials)
              : rungs.inferred(planned, trials));
      out.put("rungs_from", ExperimentRungs.FROM_VALIDATIONS);
    }
    out.set("checkpoints", checkpoints(records));
    out.set(
        "activity",
        JSON.valueToTree(
            audit.read(Optional.of(experimentId)).stream().map(AuditLines::json).toList()));
    out.set(
        "config",
        records.configJson().isEmpty() ? JSON.createObjectNode() : parse(records.configJson()));
    return Optional.of(new Document(out, records));
  }

  /**
   * A query's answer, or {@link TimeoutException} after {@link #QUERY_TIMEOUT}: a workflow no
   * worker runs does not answer, and the server would hold the call for much longer than a page or
   * a command may wait.
   */
  private static <T> T withinQueryTimeout(Supplier<T> query) throws TimeoutException {
    CompletableFuture<T> answer = CompletableFuture.supplyAsync(query, QUERIES);
    try {
      return answer.get(QUERY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while querying the experiment", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /**
   * An experiment whose workflow runs but does not answer, and which the catalog does not know yet.
   */
  private static Document unansweredDocument(
      String experimentId, WorkflowExecutionStatus status, String why) {
    ObjectNode out = JSON.createObjectNode();
    out.putObject("experiment")
        .put("experiment_id", experimentId)
        .put("state", "ACTIVE")
        .put("live", true)
        .put("running", status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING)
        .put("unanswered", why);
    out.putArray("trials");
    out.putObject("curves").put("metric", "").putArray("series");
    out.putArray("rungs");
    out.putArray("checkpoints");
    out.putArray("activity");
    return new Document(out, ExperimentHistory.Records.empty());
  }

  /**
   * Marks each active trial that waits for a worker of its pool with why ({@code waiting}) and
   * since when ({@code waiting_since}), and counts them in the experiment's {@code waiting_trials}:
   * only the server knows that a Train activity is not taken, so the workflow's own state cannot
   * say it.
   */
  private void markWaits(ObjectNode experiment, ArrayNode trials) {
    String pool = experiment.path("resource_pool").asText("");
    Instant now = Instant.now();
    int waiting = 0;
    for (JsonNode t : trials) {
      String workflowId = t.path("workflow_id").asText("");
      if (!"ACTIVE".equals(t.path("state").asText("")) || workflowId.isEmpty()) {
        continue;
      }
      Optional<TrialWaits.Wait> wait =
          TrialWaits.of(
              client,
              workflowId,
              t.path("slots").asInt(1),
              pool.isEmpty() ? ConfigDefaults.RESOURCE_POOL : pool,
              now);
      if (wait.isPresent()) {
        ((ObjectNode) t)
            .put("waiting", wait.get().reason())
            .put("waiting_since", wait.get().since().toString());
        waiting++;
      }
    }
    if (waiting > 0) {
      experiment.put("waiting_trials", waiting);
    }
  }

  /** One line per trial: {@code [batches, value]} of each validation of the searcher's metric. */
  private static ObjectNode curves(ExperimentHistory.Records records, String metric) {
    ObjectNode curves = JSON.createObjectNode().put("metric", metric);
    Map<Long, ArrayNode> byTrial = new TreeMap<>();
    for (ExperimentHistory.Metric m : records.metrics()) {
      if (m.name().equals(metric)) {
        byTrial
            .computeIfAbsent(m.trialId(), t -> JSON.createArrayNode())
            .add(JSON.createArrayNode().add(m.batches()).add(m.value()).add(m.length()));
      }
    }
    ArrayNode series = curves.putArray("series");
    byTrial.forEach(
        (trial, points) -> series.addObject().put("trial_id", trial).set("points", points));
    return curves;
  }

  /**
   * The experiment's config as its catalog row holds it, or empty when there is none or it cannot
   * be read.
   */
  private static Optional<ExperimentConfig> config(String configJson) {
    if (configJson.isEmpty()) {
      return Optional.empty();
    }
    try {
      ExperimentConfig.Builder config = ExperimentConfig.newBuilder();
      JsonFormat.parser().ignoringUnknownFields().merge(configJson, config);
      return Optional.of(config.build());
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }

  /**
   * The searcher's plan for the config, or empty when no searcher can run it (any more). Kept for
   * the last configs asked about: a followed view is read every second, and a plan of 100,000
   * trials takes about a second to make.
   */
  private static Optional<SearchPreview> plan(ExperimentConfig config) {
    synchronized (PLANS) {
      Optional<SearchPreview> known = PLANS.get(config);
      if (known != null) {
        return known;
      }
    }
    Optional<SearchPreview> plan;
    try {
      plan = Optional.of(Searchers.preview(config));
    } catch (RuntimeException e) {
      plan = Optional.empty();
    }
    synchronized (PLANS) {
      PLANS.put(config, plan);
    }
    return plan;
  }

  private static final Map<ExperimentConfig, Optional<SearchPreview>> PLANS =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(
            Map.Entry<ExperimentConfig, Optional<SearchPreview>> eldest) {
          return size() > 32;
        }
      };

  /**
   * The brackets and rung lengths of the config's searcher, before any trial; empty without
   * brackets.
   */
  private static List<BracketRungs> brackets(ExperimentConfig config) {
    try {
      return Searchers.create(config).rungs();
    } catch (RuntimeException e) {
      return List.of();
    }
  }

  /**
   * The lengths the plan trains trials to, shortest first: the rungs of ASHA and Hyperband, the one
   * length of searchers that train every trial to the end.
   */
  private static Set<Long> rungLengths(SearchPreview plan) {
    Set<Long> lengths = new TreeSet<>();
    plan.rows().forEach(row -> lengths.add(row.length()));
    return lengths;
  }

  private static ArrayNode checkpoints(ExperimentHistory.Records records) {
    ArrayNode out = JSON.createArrayNode();
    for (ExperimentHistory.Checkpoint c : records.checkpoints()) {
      ObjectNode n =
          out.addObject()
              .put("trial_id", c.trialId())
              .put("uuid", c.uuid())
              .put("state", c.state())
              .put("uri", c.uri())
              .put("size_bytes", c.sizeBytes())
              .put("batches", c.batches());
      if (c.length() != null) {
        n.put("length", c.length());
      }
      if (c.metric() != null) {
        n.put("metric", c.metric());
      }
    }
    return out;
  }

  /**
   * Trials of an experiment Temporal no longer has, as far as the catalog's rows tell: their
   * completed length in the searcher's unit ({@code completed_units} when the config cannot be
   * read) and their target length. The catalog records no target: a COMPLETED trial trained to its
   * target; any other trained towards the next length the searcher's plan trains trials to ({@code
   * lengths}, shortest first).
   */
  private static ArrayNode catalogTrials(
      ExperimentHistory.Records records, String unit, Set<Long> lengths) {
    ArrayNode out = JSON.createArrayNode();
    for (ExperimentHistory.Trial t : records.trials()) {
      ObjectNode n = out.addObject().put("trial_id", t.trialId()).put("state", t.state());
      if (unit.isEmpty()) {
        n.put("completed_units", t.length());
      } else {
        n.putObject("completed_length").put(unit, t.length());
        long target =
            "COMPLETED".equals(t.state())
                ? t.length()
                : lengths.stream().filter(l -> l > t.length()).findFirst().orElse(t.length());
        n.putObject("target_length").put(unit, target);
      }
      n.set(
          "hparams", t.hparamsJson().isEmpty() ? JSON.createObjectNode() : parse(t.hparamsJson()));
      if (!t.error().isEmpty()) {
        n.put("error", t.error());
      }
    }
    return out;
  }

  /**
   * An experiment only the catalog knows: its row, and from its config the searcher and the
   * metric's direction; its best trial is the one whose validation has the best metric (a tie goes
   * to the validation trained longer, by length then batches, then to the lower trial number, as
   * for the best checkpoint).
   */
  private static ObjectNode catalogSummary(
      ExperimentList.Summary s,
      Optional<ExperimentConfig> config,
      ExperimentHistory.Records records) {
    ObjectNode n =
        JSON.createObjectNode()
            .put("experiment_id", s.experimentId())
            .put("name", s.name())
            .put("state", s.state());
    config.ifPresent(
        c ->
            n.put("searcher", c.getSearcher().getName())
                .put("smaller_is_better", c.getSearcher().getSmallerIsBetter()));
    s.searcherMetric().ifPresent(m -> n.put("metric", m));
    if (s.bestMetric() != null) {
      n.put("best_metric", s.bestMetric());
      records.metrics().stream()
          .filter(
              m -> m.name().equals(s.searcherMetric().orElse("")) && m.value() == s.bestMetric())
          .min(
              Comparator.comparingLong(ExperimentHistory.Metric::length)
                  .reversed()
                  .thenComparing(
                      Comparator.comparingLong(ExperimentHistory.Metric::batches).reversed())
                  .thenComparingLong(ExperimentHistory.Metric::trialId))
          .ifPresent(best -> n.put("best_trial_id", best.trialId()));
    }
    if (s.dataTable() != null) {
      n.putObject("data").put("uri", s.dataTable()).put("version", s.dataVersion());
    }
    return n;
  }

  /**
   * Each catalog trial's best and latest value of the searcher's metric, as the workflow's state
   * has them.
   */
  private static void catalogMetrics(
      ArrayNode trials, ExperimentHistory.Records records, String metric, boolean smallerIsBetter) {
    for (JsonNode t : trials) {
      long trial = t.path("trial_id").asLong();
      List<ExperimentHistory.Metric> values =
          records.metrics().stream()
              .filter(m -> m.trialId() == trial && m.name().equals(metric))
              .toList(); // by batches
      if (!values.isEmpty()) {
        double best =
            values.stream()
                .mapToDouble(ExperimentHistory.Metric::value)
                .reduce(smallerIsBetter ? Math::min : Math::max)
                .getAsDouble();
        ((ObjectNode) t)
            .put("latest_metric", values.get(values.size() - 1).value())
            .put("best_metric", best);
      }
    }
  }

  /**
   * How much of the plan the catalog's trials trained: 1 once COMPLETED, else their lengths over
   * the plan's total (at most 0.99, as the searcher reports it).
   */
  private static double catalogProgress(
      String state, SearchPreview plan, ExperimentHistory.Records records) {
    if ("COMPLETED".equals(state)) {
      return 1.0;
    }
    long trained = records.trials().stream().mapToLong(ExperimentHistory.Trial::length).sum();
    return plan.totalUnits() <= 0 ? 0.0 : Math.min(0.99, (double) trained / plan.totalUnits());
  }

  private static JsonNode tree(MessageOrBuilder message) {
    try {
      return parse(JsonFormat.printer().preservingProtoFieldNames().print(message));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "unreadable JSON from the catalog: " + e.getOriginalMessage(), e);
    }
  }

  private static String write(JsonNode node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
