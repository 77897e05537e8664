package dev.keel.gpu.gang;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.KeelFailure;
import dev.keel.activities.train.GangRendezvous;
import dev.keel.api.v1.GangSpec;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.RankStarted;
import dev.keel.api.v1.Rendezvous;
import dev.keel.gpu.collective.GlooProcessGroup;
import dev.keel.gpu.collective.NcclProcessGroup;
import dev.keel.gpu.collective.ProcessGroup;
import dev.keel.gpu.collective.Store;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This process's rank in a gang, joined through the workflow that started the gang: rank 0 opens a
 * c10d {@link Store} and signals its address; every rank signals that it started and waits (as long
 * as it takes: the workflow shows "waiting for N slots") until the workflow hands out the
 * rendezvous, which it does once every rank has started. Then the ranks compare their {@link
 * Fingerprint}s through the store, so ranks that would train different things refuse with the
 * difference named, and form a Gloo process group whose collectives time out after {@link
 * GangSpec#getTimeoutSeconds()}: a rank that dies or hangs stops the others, never a silent hang.
 */
public final class GangMember implements GradientExchange {
  private static final Logger log = LoggerFactory.getLogger(GangMember.class);
  private static final Duration POLL = Duration.ofMillis(250);

  private final Store store;
  private final ProcessGroup group;
  private final int rank;
  private final int size;
  private final boolean bucketed;
  private long exchangeNanos;
  private long exchanges;

  private GangMember(Store store, ProcessGroup group, int rank, int size, boolean bucketed) {
    this.store = store;
    this.group = group;
    this.rank = rank;
    this.size = size;
    this.bucketed = bucketed;
  }

  /**
   * A rank over a store and process group formed some other way (benchmarks, tests); it closes
   * both.
   */
  public static GangMember over(Store store, ProcessGroup group) {
    return over(store, group, true);
  }

  /**
   * The same, choosing whether gradients travel in buckets or one collective per tensor (benchmarks
   * compare both).
   */
  public static GangMember over(Store store, ProcessGroup group, boolean bucketed) {
    return new GangMember(store, group, group.rank(), group.size(), bucketed);
  }

  /**
   * @param workflowId the workflow that started this rank (it serves {@link GangRendezvous})
   * @param host the address other ranks reach this process at
   * @param stopped true once the activity was cancelled or abandoned: stop waiting
   */
  public static GangMember join(
      WorkflowClient client,
      String workflowId,
      GangSpec spec,
      RankInfo me,
      String host,
      Fingerprint fingerprint,
      BooleanSupplier stopped) {
    Duration timeout = Duration.ofSeconds(Math.max(1, spec.getTimeoutSeconds()));
    WorkflowStub workflow = client.newUntypedWorkflowStub(workflowId);
    Store store = null;
    ProcessGroup group = null;
    try {
      RankStarted.Builder started =
          RankStarted.newBuilder().setGangId(spec.getGangId()).setRank(me);
      if (spec.getRank() == 0) {
        store = Store.server(host, 0, spec.getWorldSize(), timeout);
        started.setRendezvous(
            Rendezvous.newBuilder()
                .setGangId(spec.getGangId())
                .setHost(host)
                .setPort(store.port())
                .setFingerprint(fingerprint.text()));
      }
      workflow.signal(GangRendezvous.RANK_STARTED, started.build());
      Rendezvous rv = awaitRendezvous(workflow, spec, stopped);
      if (spec.getRank() != 0) {
        fingerprint.requireSame(Fingerprint.parse(rv.getFingerprint()), "rank 0");
        store = Store.client(rv.getHost(), rv.getPort(), spec.getWorldSize(), timeout);
      }
      store.set(
          "fingerprint/" + spec.getRank(), fingerprint.text().getBytes(StandardCharsets.UTF_8));
      if (spec.getRank() == 0) {
        for (int r = 1; r < spec.getWorldSize(); r++) {
          fingerprint.requireSame(
              Fingerprint.parse(new String(store.get("fingerprint/" + r), StandardCharsets.UTF_8)),
              "rank " + r);
        }
      }
      group =
          onGpu()
              ? NcclProcessGroup.create(store, spec.getRank(), spec.getWorldSize(), timeout)
              : GlooProcessGroup.create(store, spec.getRank(), spec.getWorldSize(), host, timeout);
      log.info(
          "gang {}: rank {} of {} joined (store {}:{})",
          spec.getGangId(),
          spec.getRank(),
          spec.getWorldSize(),
          rv.getHost(),
          rv.getPort());
      return new GangMember(store, group, spec.getRank(), spec.getWorldSize(), true);
    } catch (RuntimeException | Error e) {
      if (group != null) {
        group.close();
      }
      if (store != null) {
        store.close();
      }
      throw e;
    }
  }

  private static Rendezvous awaitRendezvous(
      WorkflowStub workflow, GangSpec spec, BooleanSupplier stopped) {
    while (true) {
      Rendezvous rv = workflow.query(GangRendezvous.RENDEZVOUS, Rendezvous.class, spec.getGangId());
      if (rv.getAbandoned()) {
        throw KeelFailure.retryable(
            "gang "
                + spec.getGangId()
                + " was given up by its workflow (rank 0 failed"
                + " before every rank started); rank "
                + spec.getRank()
                + " stops",
            "GangAbandoned");
      }
      if (rv.getPort() > 0) {
        return rv;
      }
      if (stopped.getAsBoolean()) {
        throw KeelFailure.retryable(
            "rank "
                + spec.getRank()
                + " of gang "
                + spec.getGangId()
                + " stopped while waiting for the other ranks",
            "GangAbandoned");
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw KeelFailure.retryable("interrupted while waiting for the gang", "GangAbandoned");
      }
    }
  }

  /**
   * DJL trains on the GPU when it sees one, so the gradients live there and NCCL exchanges them;
   * else Gloo on the CPU.
   */
  private static boolean onGpu() {
    return Engine.getInstance().defaultDevice().isGpu();
  }

  /** A mismatch is the input's fault: restarting the gang would meet it again. */
  static KeelFailure mismatch(String message) {
    return KeelFailure.nonRetryable(message, FailureTypes.GANG_MISMATCH);
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return size;
  }

  /** Sums in place over the ranks, in buckets, then divides: Gloo has no average. */
  @Override
  public void average(List<NDArray> arrays) {
    long t0 = System.nanoTime();
    if (bucketed) {
      group.allreduceSumBucketed(arrays);
    } else {
      group.allreduceSum(arrays);
    }
    for (NDArray a : arrays) {
      a.divi(size);
    }
    exchangeNanos += System.nanoTime() - t0;
    exchanges++;
  }

  /** Time spent averaging so far (collectives and the division), in seconds. */
  public double exchangeSeconds() {
    return exchangeNanos / 1e9;
  }

  public long exchanges() {
    return exchanges;
  }

  @Override
  public void broadcastFromRankZero(List<NDArray> arrays) {
    group.broadcast(arrays, 0);
  }

  @Override
  public void close() {
    group.close();
    store.close();
  }
}
