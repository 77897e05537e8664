package dev.keel.gpu.gang;

import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.collective.GlooProcessGroup;
import dev.keel.gpu.collective.Store;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.ChildJvm;
import dev.keel.gpu.testing.FashionMnist;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.testing.TinyMlp;
import dev.keel.gpu.train.ProgressListener;
import dev.keel.gpu.train.Trainer;
import dev.keel.gpu.train.TrainingOutcome;
import dev.keel.gpu.train.TrainingPlan;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * One rank in its own process, arguments as {@code key=value}: root, trial, optimizer, batch
 * (global), steps, rank, world, port, and optionally every (checkpoint period), from (checkpoint
 * URI), torchscript (a TorchScript file to train instead of {@link TinyMlp}). The ranks form their
 * gang over a store on 127.0.0.1:port served by rank 0, instead of through a workflow; the training
 * is the worker's own. Prints {@code BATCH n} after every batch, {@code WRITTEN <uri>} after each
 * checkpoint and {@code CHECKPOINT <uri>} at the end (rank 0); a failure prints {@code FAILED
 * <message>} and exits with 3. A rank of a gang (world > 1) says when it is ready and waits for its
 * go line ({@link ChildJvm#readyThenAwaitGo}, {@link RankProcesses#go}) before it joins.
 */
public final class GangRankMain {
  private GangRankMain() {}

  public static void main(String[] args) {
    Map<String, String> a = new HashMap<>();
    for (String arg : args) {
      a.put(arg.substring(0, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
    }
    int rank = Integer.parseInt(a.get("rank"));
    int world = Integer.parseInt(a.get("world"));
    int port = Integer.parseInt(a.getOrDefault("port", "0"));
    TrainRequest.Builder request =
        request(
                Path.of(a.get("root")),
                a.get("trial"),
                a.get("optimizer"),
                Integer.parseInt(a.get("batch")),
                Long.parseLong(a.get("steps")))
            .setCheckpointEveryBatches(Long.parseLong(a.getOrDefault("every", "0")));
    if (a.containsKey("torchscript")) {
      request.setModel(ModelSpec.newBuilder().setTorchscript(a.get("torchscript")));
    }
    if (a.containsKey("from")) {
      request.setStartFrom(CheckpointRef.newBuilder().setUri(a.get("from")));
    }
    Duration timeout = Duration.ofSeconds(30);
    GangJoin join =
        world == 1
            ? GangJoin.SINGLE
            : parameters -> {
              Store store =
                  rank == 0
                      ? Store.server("127.0.0.1", port, world, timeout)
                      : Store.client("127.0.0.1", port, world, timeout);
              return GangMember.over(
                  store, GlooProcessGroup.create(store, rank, world, "127.0.0.1", timeout));
            };
    ProgressListener print =
        p -> {
          System.out.println("BATCH " + p.batches());
          if (p.checkpointJustWritten()) {
            p.lastCheckpoint().ifPresent(c -> System.out.println("WRITTEN " + c.getUri()));
          }
        };
    try {
      TrainingPlan plan = TrainingPlan.from(request.build(), ModelZoo.withBuiltIns());
      var data = FashionMnist.train();
      if (world > 1) {
        // the gang's 30 s rendezvous counts from here, once every rank has started and read its
        // data
        ChildJvm.readyThenAwaitGo();
      }
      TrainingOutcome out = new Trainer(plan, data, print, join).run();
      if (out.checkpoint() != null) {
        System.out.println("CHECKPOINT " + out.checkpoint().getUri());
      }
      System.out.flush();
      System.exit(0);
    } catch (Exception | Error e) {
      System.out.println("FAILED " + e);
      System.out.flush();
      System.exit(3);
    }
  }

  /**
   * A model without batch norm or dropout, so a share of a batch computes exactly its part of the
   * whole batch's gradient.
   */
  static TrainRequest.Builder request(
      Path root, String trialId, String optimizer, int globalBatch, long steps) {
    return Requests.fashionCnn(root, steps)
        .setTrialId(trialId)
        .setModel(ModelSpec.newBuilder().setClass_(TinyMlp.class.getName()))
        .putHparams("batch_size", Requests.num(globalBatch))
        .putHparams("optimizer", Requests.str(optimizer))
        .putHparams("lr", Requests.num("sgd".equals(optimizer) ? 0.05 : 1e-3));
  }
}
