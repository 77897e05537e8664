package dev.keel.search.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import dev.keel.api.length.TrainingLength;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.search.BracketRungs;
import dev.keel.search.Close;
import dev.keel.search.Create;
import dev.keel.search.ExitReason;
import dev.keel.search.Operation;
import dev.keel.search.Searcher;
import dev.keel.search.SearcherOptions;
import dev.keel.search.Shutdown;
import dev.keel.search.ValidateAfter;
import dev.keel.search.WarmStart;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The {@link Searcher} every algorithm runs in: the trial book (ids, hyperparameters, lengths,
 * state), the protocol checks, the {@code max_concurrent_trials} gate (requests beyond it wait in a
 * FIFO queue), metric direction, progress, {@link Shutdown} and snapshots.
 */
public final class SearchEngine implements Searcher {
  public static final String SNAPSHOT_FORMAT = "keel.searcher.v1";

  private final ExperimentConfig config;
  private final SearcherOptions options;
  private final SearchMethod method;
  private final TrainingLength maxLength;
  private final int maxConcurrent;
  private final boolean smallerIsBetter;
  private final SearchContext ctx = new SearchContext(this);
  private State state;
  private List<Operation> out;
  private final List<Long> createdInBatch = new ArrayList<>();

  /** Trial bookkeeping; the snapshot's {@code engine} document. */
  static final class State {
    long nextTrialId = 1;
    Prng rng;
    boolean started;
    boolean shutdown;
    long unitsTrained;
    int active;
    int open;
    TreeMap<Long, Trial> trials = new TreeMap<>();
    ArrayDeque<Long> queue = new ArrayDeque<>();
  }

  static final class Trial {
    TreeMap<String, Value> hparams;
    long parent;
    long startUnits;
    boolean createSent;
    boolean acknowledged;

    /** Length of the outstanding (sent or queued) request, 0 if none. */
    long requested;

    boolean requestSent;
    long trained;
    boolean closeSent;

    /** null while open; CLOSED or an {@link ExitReason} name once ended. */
    String end;
  }

  public SearchEngine(
      ExperimentConfig config,
      SearcherOptions options,
      SearchMethod method,
      long seed,
      int maxConcurrent) {
    this.config = config;
    this.options = options;
    this.method = method;
    this.maxLength = TrainingLength.of(config.getSearcher().getMaxLength());
    this.maxConcurrent = maxConcurrent;
    this.smallerIsBetter = config.getSearcher().getSmallerIsBetter();
    this.state = new State();
    this.state.rng = new Prng(seed);
  }

  public ExperimentConfig config() {
    return config;
  }

  public SearcherOptions options() {
    return options;
  }

  public int maxConcurrentTrials() {
    return maxConcurrent;
  }

  public SearchMethod method() {
    return method;
  }

  @Override
  public String name() {
    return config.getSearcher().getName();
  }

  @Override
  public List<Operation> initialOperations() {
    if (state.started) {
      throw new IllegalStateException("initialOperations() was already called");
    }
    return run(
        () -> {
          state.started = true;
          method.start(ctx);
        });
  }

  @Override
  public List<Operation> trialCreated(long trialId) {
    Trial t = openTrial(trialId);
    if (!t.createSent) {
      throw new IllegalStateException("trial " + trialId + " was not created yet");
    }
    if (t.acknowledged) {
      throw new IllegalStateException("trial " + trialId + " was already reported created");
    }
    return run(
        () -> {
          t.acknowledged = true;
          method.trialCreated(ctx, trialId);
        });
  }

  @Override
  public List<Operation> validationCompleted(long trialId, double metric, TrainingLength length) {
    Trial t = openTrial(trialId);
    if (!t.requestSent || t.requested == 0) {
      throw new IllegalStateException("trial " + trialId + " has no outstanding ValidateAfter");
    }
    if (length.unit() != maxLength.unit() || length.units() != t.requested) {
      throw new IllegalStateException(
          "trial "
              + trialId
              + " was asked to validate after "
              + new TrainingLength(t.requested, maxLength.unit())
              + ", got "
              + length);
    }
    double score = score(metric);
    return run(
        () -> {
          state.unitsTrained += t.requested - t.trained;
          t.trained = t.requested;
          t.requested = 0;
          t.requestSent = false;
          state.active--;
          method.validationCompleted(ctx, trialId, score, t.trained);
        });
  }

  @Override
  public List<Operation> trialClosed(long trialId) {
    Trial t = openTrial(trialId);
    if (!t.closeSent) {
      throw new IllegalStateException("trial " + trialId + " was not asked to close");
    }
    return run(
        () -> {
          end(t, "CLOSED");
          method.trialClosed(ctx, trialId);
        });
  }

  @Override
  public List<Operation> trialExitedEarly(long trialId, ExitReason reason) {
    Trial t = openTrial(trialId);
    if (!t.createSent) {
      throw new IllegalStateException("trial " + trialId + " was not created yet");
    }
    Objects.requireNonNull(reason, "reason");
    return run(
        () -> {
          if (t.requested != 0) {
            if (t.requestSent) {
              state.active--;
            } else {
              state.queue.remove(trialId);
            }
            t.requested = 0;
            t.requestSent = false;
          }
          end(t, reason.name());
          method.trialExitedEarly(ctx, trialId, reason);
        });
  }

  @Override
  public double progress() {
    if (state.shutdown) {
      return 1.0;
    }
    long expected = method.expectedTotalUnits();
    return expected <= 0 ? 0.0 : Math.min(0.99, (double) state.unitsTrained / expected);
  }

  @Override
  public boolean isShutdown() {
    return state.shutdown;
  }

  /** Total training reported so far, in the experiment's unit. */
  public long unitsTrained() {
    return state.unitsTrained;
  }

  @Override
  public String trialGroup(long trialId) {
    return method.groupOf(trialId);
  }

  @Override
  public List<BracketRungs> rungs() {
    return method.rungs(ctx);
  }

  @Override
  public String snapshot() {
    ObjectNode doc = StateCodec.object();
    doc.put("format", SNAPSHOT_FORMAT);
    try {
      doc.set(
          "config",
          StateCodec.read(JsonFormat.printer().omittingInsignificantWhitespace().print(config)));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
    doc.set("options", StateCodec.toTree(options));
    doc.set("engine", StateCodec.toTree(state));
    doc.set("method", method.saveState());
    return StateCodec.write(doc);
  }

  /** Reads the config of a snapshot (to rebuild the searcher it came from). */
  public static ExperimentConfig snapshotConfig(JsonNode doc) {
    if (!SNAPSHOT_FORMAT.equals(doc.path("format").asText())) {
      throw new IllegalArgumentException(
          "not a searcher snapshot (format " + doc.path("format") + ")");
    }
    ExperimentConfig.Builder b = ExperimentConfig.newBuilder();
    try {
      JsonFormat.parser().merge(StateCodec.write(doc.get("config")), b);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("bad searcher snapshot config: " + e.getMessage(), e);
    }
    return b.build();
  }

  public static SearcherOptions snapshotOptions(JsonNode doc) {
    return StateCodec.fromTree(doc.get("options"), SearcherOptions.class);
  }

  /** Replaces this (fresh) engine's state with the snapshot's. */
  public void restore(JsonNode doc) {
    State restored = StateCodec.fromTree(doc.get("engine"), State.class);
    method.loadState(doc.get("method"));
    this.state = restored;
  }

  // ---- called by SearchContext ----

  long createTrial(SortedMap<String, Value> hparams, long parent, long parentUnits) {
    if (parent != 0) {
      Trial p = state.trials.get(parent);
      if (p == null || p.trained < parentUnits || parentUnits <= 0) {
        throw new IllegalStateException("cannot fork from trial " + parent + " at " + parentUnits);
      }
    }
    long id = state.nextTrialId++;
    Trial t = new Trial();
    t.hparams = new TreeMap<>(hparams);
    t.parent = parent;
    t.startUnits = parentUnits;
    t.trained = parentUnits;
    state.trials.put(id, t);
    state.open++;
    createdInBatch.add(id);
    return id;
  }

  void requestValidation(long trialId, long units) {
    Trial t = openTrial(trialId);
    if (t.closeSent) {
      throw new IllegalStateException("trial " + trialId + " is closing");
    }
    if (t.requested != 0) {
      throw new IllegalStateException("trial " + trialId + " already has an outstanding request");
    }
    if (units <= t.trained || units > maxLength.units()) {
      throw new IllegalStateException(
          "trial "
              + trialId
              + " cannot train to "
              + units
              + " (trained "
              + t.trained
              + ", max_length "
              + maxLength.units()
              + ")");
    }
    t.requested = units;
    state.queue.addLast(trialId);
  }

  void requestClose(long trialId) {
    Trial t = openTrial(trialId);
    if (t.requested != 0 || t.closeSent || !t.createSent) {
      throw new IllegalStateException("trial " + trialId + " cannot be closed now");
    }
    t.closeSent = true;
    out.add(new Close(trialId));
  }

  int freeSlots() {
    return Math.max(0, maxConcurrent - state.active - state.queue.size());
  }

  TrainingLength maxLength() {
    return maxLength;
  }

  Prng rng() {
    return state.rng;
  }

  SortedMap<String, Value> hparams(long trialId) {
    Trial t = state.trials.get(trialId);
    if (t == null) {
      throw new IllegalArgumentException("unknown trial " + trialId);
    }
    return Collections.unmodifiableSortedMap(t.hparams);
  }

  long trained(long trialId) {
    Trial t = state.trials.get(trialId);
    return t == null ? 0 : t.trained;
  }

  boolean isFinished(long trialId) {
    Trial t = state.trials.get(trialId);
    return t != null && (t.end != null || t.closeSent);
  }

  // ---- internals ----

  private Trial openTrial(long trialId) {
    if (state.shutdown) {
      throw new IllegalStateException("the search is shut down");
    }
    if (!state.started) {
      throw new IllegalStateException("initialOperations() was not called");
    }
    Trial t = state.trials.get(trialId);
    if (t == null) {
      throw new IllegalArgumentException("unknown trial " + trialId);
    }
    if (t.end != null) {
      throw new IllegalStateException("trial " + trialId + " already ended (" + t.end + ")");
    }
    return t;
  }

  private double score(double metric) {
    if (Double.isNaN(metric)) {
      return SearchMethod.WORST_SCORE;
    }
    double s = smallerIsBetter ? metric : -metric;
    return Math.max(-Double.MAX_VALUE, Math.min(Double.MAX_VALUE, s));
  }

  private List<Operation> run(Runnable step) {
    out = new ArrayList<>();
    try {
      step.run();
      release();
      for (long id : createdInBatch) {
        Trial t = state.trials.get(id);
        if (t.end == null && !t.createSent && t.requested == 0) {
          throw new IllegalStateException("trial " + id + " was created without a ValidateAfter");
        }
      }
      if (state.open == 0) {
        state.shutdown = true;
        out.add(new Shutdown());
      }
      return List.copyOf(out);
    } finally {
      out = null;
      createdInBatch.clear();
    }
  }

  private void end(Trial t, String how) {
    t.end = how;
    state.open--;
  }

  private void release() {
    while (!state.queue.isEmpty() && state.active < maxConcurrent) {
      long id = state.queue.removeFirst();
      Trial t = state.trials.get(id);
      if (!t.createSent) {
        Optional<WarmStart> warm =
            t.parent == 0
                ? Optional.empty()
                : Optional.of(
                    new WarmStart(t.parent, new TrainingLength(t.startUnits, maxLength.unit())));
        out.add(new Create(id, t.hparams, warm));
        t.createSent = true;
      }
      out.add(new ValidateAfter(id, new TrainingLength(t.requested, maxLength.unit())));
      t.requestSent = true;
      state.active++;
    }
  }
}
