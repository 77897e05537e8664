package dev.keel.activities.train;

import dev.keel.api.v1.RankStarted;
import dev.keel.api.v1.Rendezvous;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;

/**
 * How the ranks of a gang find each other through the workflow that started them: rank 0 opens a
 * c10d store and signals its address ({@link #rankStarted}); the other ranks signal that they
 * started and query {@link #rendezvous} until it is known. Every workflow that trains gangs
 * registers a listener of this interface, so a rank needs only its own workflow id.
 */
public interface GangRendezvous {
  String RANK_STARTED = "KeelRankStarted";
  String RENDEZVOUS = "KeelRendezvous";

  @SignalMethod(name = RANK_STARTED)
  void rankStarted(RankStarted started);

  /** Rank 0's rendezvous for that gang, or the default instance while it is not known yet. */
  @QueryMethod(name = RENDEZVOUS)
  Rendezvous rendezvous(String gangId);
}
