package dev.keel.workflows.testing;

import dev.keel.activities.train.GangRendezvous;
import dev.keel.api.v1.RankInfo;
import dev.keel.api.v1.RankStarted;
import dev.keel.api.v1.Rendezvous;
import dev.keel.api.v1.TrainRequest;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.util.concurrent.TimeUnit;

/**
 * A rank's side of the gang rendezvous, played for real through the workflow's signal and query
 * from inside a Train activity, as {@code GangMember} plays it on a worker.
 */
public final class FakeRank {
  private FakeRank() {}

  /**
   * Signals that this rank started (rank 0 with an address), then waits for the gang's rendezvous.
   *
   * @throws ApplicationFailure of type {@code GangAbandoned} when the workflow gave the gang up
   */
  public static Rendezvous join(TrainRequest r) {
    ActivityExecutionContext ctx = Activity.getExecutionContext();
    WorkflowStub wf = ctx.getWorkflowClient().newUntypedWorkflowStub(ctx.getInfo().getWorkflowId());
    String gangId = r.getGang().getGangId();
    RankStarted.Builder started =
        RankStarted.newBuilder()
            .setGangId(gangId)
            .setRank(
                RankInfo.newBuilder()
                    .setRank(r.getGang().getRank())
                    .setWorkerIdentity("worker-" + r.getGang().getRank())
                    .setDevice("cpu"));
    if (r.getGang().getRank() == 0) {
      started.setRendezvous(
          Rendezvous.newBuilder().setGangId(gangId).setHost("127.0.0.1").setPort(29500));
    }
    wf.signal(GangRendezvous.RANK_STARTED, started.build());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      Rendezvous rv = wf.query(GangRendezvous.RENDEZVOUS, Rendezvous.class, gangId);
      if (rv.getAbandoned()) {
        throw ApplicationFailure.newFailure("abandoned", "GangAbandoned");
      }
      if (rv.getPort() > 0) {
        return rv;
      }
      ctx.heartbeat(null);
      try {
        // The rendezvous is a query, answered only when asked: ranks poll it, as GangMember does.
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for the rendezvous of " + gangId, e);
      }
    }
    throw new IllegalStateException("no rendezvous for " + gangId);
  }
}
