package dev.keel.service.cli;

import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "worker", mixinStandardHelpOptions = true,
    description = "Run Keel workers against a Temporal cluster ($TEMPORAL_ADDRESS or --temporal), e.g. one per GPU machine.")
final class WorkerCommand implements Callable<Integer> {
  @Mixin StackOptions stack;

  @Option(names = "--roles", split = ",", defaultValue = "CONTROL,ETL,TRAIN,INFER",
      description = "Task queues to serve: ${COMPLETION-CANDIDATES} (default: all).")
  Set<Role> roles = EnumSet.allOf(Role.class);

  @Option(names = "--pool", defaultValue = "cpu", description = "Training pool; polls keel-train-<pool> (default: ${DEFAULT-VALUE}).")
  String pool;

  @Option(names = "--slots", defaultValue = "1", description = "Concurrent training slots on this machine (default: ${DEFAULT-VALUE}).")
  int slots;

  @Option(names = "--train-threads", defaultValue = "1", description = "Intra-op threads per slot (default: ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--dev-server",
      description = "The Temporal server is Temporal's Java test server (`keel dev`): poll without sticky workflow "
          + "caching, because that server never hands a dead worker's workflows to another worker otherwise.")
  boolean devServer;

  @Override
  public Integer call() throws Exception {
    String address = stack.temporalAddressOrNull();
    if (address == null) {
      throw new IllegalArgumentException("no Temporal address: set TEMPORAL_ADDRESS or pass --temporal HOST:PORT");
    }
    KeelWorkerHost host = KeelWorkerHost.start(WorkerHostOptions.newBuilder()
        .setTemporalAddress(address).setStorageRoot(stack.storageRoot())
        .optRoles(roles).optTrainPool(pool).optTrainSlots(slots).optTrainThreads(threads).optDevServer(devServer).build());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      host.close();
      stopped.countDown();
    }));
    stopped.await();
    return 0;
  }
}
