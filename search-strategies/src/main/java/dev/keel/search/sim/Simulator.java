package dev.keel.search.sim;

import com.google.protobuf.Value;
import dev.keel.api.length.LengthUnit;
import dev.keel.api.length.TrainingLength;
import dev.keel.search.Close;
import dev.keel.search.Create;
import dev.keel.search.ExitReason;
import dev.keel.search.Operation;
import dev.keel.search.Searcher;
import dev.keel.search.Searchers;
import dev.keel.search.Shutdown;
import dev.keel.search.ValidateAfter;
import dev.keel.search.core.Prng;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Runs a searcher against an oracle with {@code workers} simulated workers, in simulated time.
 * Training requests wait in a FIFO queue for a free worker; a request takes {@code (target -
 * trained) * secondsPerUnit} seconds. {@code Create} and {@code Close} are acknowledged at once. A
 * warm-started trial begins at its parent's length (the oracle is asked at the child's
 * hyperparameters and total length). Deterministic for a given seed.
 *
 * <p>The simulator checks the protocol as it goes and fails with {@link IllegalStateException} if
 * the searcher stalls (trials left open with nothing to do) or keeps going after {@code Shutdown}.
 */
public final class Simulator {
  /** How many exchanges run between two questions to {@link #stoppingWhen}'s condition. */
  static final int STOP_CHECK_PERIOD = 256;

  private final LearningCurveOracle oracle;
  private final int workers;
  private double target = Double.NaN;
  private FaultModel faults = FaultModel.NONE;
  private boolean recordTranscript;
  private int swapAtExchange = -1;
  private UnaryOperator<Searcher> swap;
  private Consumer<SimEvent.Exchange> observer = e -> {};
  private BooleanSupplier stop = () -> false;

  private Simulator(LearningCurveOracle oracle, int workers) {
    this.oracle = oracle;
    this.workers = workers;
  }

  public static Simulator of(LearningCurveOracle oracle, int workers) {
    return new Simulator(oracle, workers);
  }

  private Simulator copy() {
    Simulator s = new Simulator(oracle, workers);
    s.target = target;
    s.faults = faults;
    s.recordTranscript = recordTranscript;
    s.swapAtExchange = swapAtExchange;
    s.swap = swap;
    s.observer = observer;
    s.stop = stop;
    return s;
  }

  /** Records when a validation first reaches this metric. */
  public Simulator withTarget(double metric) {
    Simulator s = copy();
    s.target = metric;
    return s;
  }

  public Simulator withFaults(FaultModel f) {
    Simulator s = copy();
    s.faults = f;
    return s;
  }

  public Simulator recordingTranscript() {
    Simulator s = copy();
    s.recordTranscript = true;
    return s;
  }

  /**
   * Hands every exchange to {@code observer} as it happens (without keeping the transcript in
   * memory).
   */
  public Simulator observing(Consumer<SimEvent.Exchange> exchangeObserver) {
    Simulator s = copy();
    s.observer = exchangeObserver;
    return s;
  }

  /**
   * Asks {@code condition} every {@value #STOP_CHECK_PERIOD} exchanges and gives up with a {@link
   * SimulationStoppedException} once it says stop (a caller's deadline; the simulation itself never
   * reads a clock).
   */
  public Simulator stoppingWhen(BooleanSupplier condition) {
    Simulator s = copy();
    s.stop = condition;
    return s;
  }

  /**
   * Before exchange {@code n}, replaces the searcher by {@code swap(searcher)} (e.g. snapshot and
   * restore).
   */
  public Simulator swappingSearcherAt(int n, UnaryOperator<Searcher> swapFunction) {
    Simulator s = copy();
    s.swapAtExchange = n;
    s.swap = swapFunction;
    return s;
  }

  /** Snapshot-and-restore before exchange {@code n}. */
  public Simulator restoringFromSnapshotAt(int n) {
    return swappingSearcherAt(n, s -> Searchers.restore(s.snapshot()));
  }

  public SimulationResult run(Searcher searcher, long seed) {
    return new Run(searcher, seed).run();
  }

  private static final class SimTrial {
    SortedMap<String, Value> hparams;
    long trained;
    boolean invalid;
    boolean started;
  }

  private record Job(
      long trialId, long from, long to, LengthUnit unit, double start, double end, long seq) {}

  private final class Run {
    private Searcher searcher;
    private final Prng noise;
    private final Prng faultRng;
    private final TreeMap<Long, SimTrial> trials = new TreeMap<>();
    private final ArrayDeque<SimEvent> immediate = new ArrayDeque<>();
    private final ArrayDeque<ValidateAfter> waiting = new ArrayDeque<>();
    private final PriorityQueue<Job> running =
        new PriorityQueue<>(
            (x, y) -> x.end != y.end ? Double.compare(x.end, y.end) : Long.compare(x.seq, y.seq));
    private final List<Job> finished = new ArrayList<>();
    private final List<SimEvent.Exchange> transcript = new ArrayList<>();
    private double now;
    private long seq;
    private int exchanges;
    private boolean shutdown;
    private int created;
    private int invalid;
    private long units;
    private double busy;
    private double lastCreate;
    private double best = Double.NaN;
    private long bestTrial;
    private double timeToTarget = Double.NaN;
    private int maxActive;

    Run(Searcher searcher, long seed) {
      this.searcher = searcher;
      Prng root = new Prng(seed);
      this.noise = root.split();
      this.faultRng = root.split();
    }

    SimulationResult run() {
      call(new SimEvent.Initial());
      while (true) {
        while (!immediate.isEmpty()) {
          call(immediate.removeFirst());
        }
        dispatch();
        if (!immediate.isEmpty()) {
          continue;
        }
        if (running.isEmpty()) {
          break;
        }
        complete(running.poll());
      }
      if (!shutdown) {
        throw new IllegalStateException(
            "searcher "
                + searcher.name()
                + " stalled at t="
                + now
                + " with "
                + trials.size()
                + " trials and no work (a trial was never closed?)");
      }
      double phase = lastCreate;
      double busyInPhase = 0;
      double unitsAtTarget = Double.NaN;
      if (!Double.isNaN(timeToTarget)) {
        unitsAtTarget = 0;
      }
      for (Job j : finished) {
        busyInPhase += overlap(j, phase);
        if (!Double.isNaN(timeToTarget)) {
          double d = j.end - j.start;
          unitsAtTarget +=
              d <= 0
                  ? (j.end <= timeToTarget ? j.to - j.from : 0)
                  : (j.to - j.from) * overlap(j, timeToTarget) / d;
        }
      }
      return new SimulationResult(
          workers,
          created,
          invalid,
          units,
          now,
          busy,
          phase,
          busyInPhase,
          best,
          bestTrial,
          timeToTarget,
          unitsAtTarget,
          maxActive,
          recordTranscript ? List.copyOf(transcript) : List.of());
    }

    private double overlap(Job j, double until) {
      return Math.max(0, Math.min(j.end, until) - j.start);
    }

    private void call(SimEvent event) {
      if (shutdown) {
        throw new IllegalStateException("event after Shutdown: " + event);
      }
      if (exchanges == swapAtExchange) {
        searcher = swap.apply(searcher);
      }
      if (exchanges % STOP_CHECK_PERIOD == 0 && stop.getAsBoolean()) {
        throw new SimulationStoppedException(
            "the simulation was stopped after " + exchanges + " exchanges");
      }
      exchanges++;
      List<Operation> ops = event.deliver(searcher);
      SimEvent.Exchange exchange = new SimEvent.Exchange(now, event, ops);
      observer.accept(exchange);
      if (recordTranscript) {
        transcript.add(exchange);
      }
      for (Operation op : ops) {
        if (shutdown) {
          throw new IllegalStateException("operation after Shutdown: " + op);
        }
        if (op instanceof Create c) {
          SimTrial t = new SimTrial();
          t.hparams = c.hparams();
          t.trained = c.warmStart().map(w -> w.parentLength().units()).orElse(0L);
          t.invalid =
              faults.invalidHpProbability() > 0
                  && faultRng.nextDouble() < faults.invalidHpProbability();
          trials.put(c.trialId(), t);
          created++;
          lastCreate = now;
          immediate.addLast(new SimEvent.TrialCreated(c.trialId()));
        } else if (op instanceof ValidateAfter v) {
          waiting.addLast(v);
        } else if (op instanceof Close c) {
          immediate.addLast(new SimEvent.TrialClosed(c.trialId()));
        } else if (op instanceof Shutdown) {
          shutdown = true;
        }
      }
    }

    private void dispatch() {
      while (running.size() < workers && !waiting.isEmpty()) {
        ValidateAfter v = waiting.removeFirst();
        SimTrial t = trials.get(v.trialId());
        if (t.invalid && !t.started) {
          t.started = true;
          invalid++;
          immediate.addLast(new SimEvent.TrialExitedEarly(v.trialId(), ExitReason.INVALID_HP));
          continue;
        }
        t.started = true;
        double seconds = (v.length().units() - t.trained) * oracle.secondsPerUnit(t.hparams);
        running.add(
            new Job(
                v.trialId(),
                t.trained,
                v.length().units(),
                v.length().unit(),
                now,
                now + seconds,
                seq++));
        maxActive = Math.max(maxActive, running.size());
      }
    }

    private void complete(Job job) {
      now = job.end;
      finished.add(job);
      busy += job.end - job.start;
      units += job.to - job.from;
      SimTrial t = trials.get(job.trialId);
      t.trained = job.to;
      if (faults.errorProbability() > 0 && faultRng.nextDouble() < faults.errorProbability()) {
        call(new SimEvent.TrialExitedEarly(job.trialId, ExitReason.ERRORED));
        return;
      }
      double metric = oracle.metric(t.hparams, job.to, noise);
      boolean better =
          Double.isNaN(best) || (oracle.smallerIsBetter() ? metric < best : metric > best);
      if (better) {
        best = metric;
        bestTrial = job.trialId;
      }
      if (Double.isNaN(timeToTarget)
          && !Double.isNaN(target)
          && (oracle.smallerIsBetter() ? metric <= target : metric >= target)) {
        timeToTarget = now;
      }
      call(
          new SimEvent.ValidationCompleted(
              job.trialId, metric, new TrainingLength(job.to, job.unit)));
    }
  }
}
