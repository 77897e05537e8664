package dev.keel.service.cli;

import dev.keel.gpu.device.CudaDeviceInventory;
import dev.keel.gpu.device.DeviceDiscovery;
import dev.keel.gpu.device.DeviceInventory;
import dev.keel.gpu.device.SlotAssignment;
import dev.keel.gpu.device.SlotDevice;
import dev.keel.service.api.ApiToken;
import dev.keel.service.api.MetricsServer;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.service.worker.TrainSlotProcesses;
import dev.keel.service.worker.WorkerHostOptions;
import dev.keel.service.worker.WorkerHostOptions.Role;
import dev.keel.storage.StorageRoot;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description = {
      "Run Keel workers against a Temporal cluster ($TEMPORAL_ADDRESS or --temporal), e.g. one per GPU machine.",
      "A TRAIN worker first asks the CUDA driver for this machine's GPUs and prints one line about them (what it "
          + "found, or why it trains on the CPU), then one line per training slot: its device and its Temporal "
          + "worker identity."
    })
final class WorkerCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(WorkerCommand.class);

  @Mixin StackOptions.Worker stack;

  @Option(
      names = "--roles",
      split = ",",
      defaultValue = "CONTROL,ETL,TRAIN,INFER",
      description = "Task queues to serve: ${COMPLETION-CANDIDATES} (default: all).")
  Set<Role> roles = EnumSet.allOf(Role.class);

  @Option(
      names = "--pool",
      defaultValue = "cpu",
      description = "Training pool; polls keel-train-<pool> (default: ${DEFAULT-VALUE}).")
  String pool;

  @Option(
      names = "--slots",
      paramLabel = "N",
      description =
          "Training slots on this machine: N processes, each polling keel-train-<pool> for one Train activity "
              + "at a time (DJL trains one rank per JVM). Default: one per GPU found, else 1. 1 trains in this process. "
              + "N > 1 starts N child JVMs (same class path, Temporal and storage root; identity <host>-slot-<i>; on a GPU "
              + "host CUDA_VISIBLE_DEVICES=<i>), starts one that dies again after a back-off and stops them when this "
              + "worker stops; the other roles stay in this process.")
  Integer slots;

  @Option(
      names = "--train-threads",
      defaultValue = "1",
      description = "Intra-op threads per slot (default: ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--identity",
      paramLabel = "NAME",
      description =
          "Temporal worker identity (default: <pid>@<host>); slot processes get <NAME or host>-slot-<i>.")
  String identity;

  @Option(
      names = "--dev-server",
      description =
          "The Temporal server is Temporal's Java test server (`keel dev`): poll without sticky workflow "
              + "caching, because that server never hands a dead worker's workflows to another worker otherwise.")
  boolean devServer;

  @Option(
      names = "--metrics",
      paramLabel = "HOST:PORT",
      description =
          "Serve this process's metrics (Prometheus text) at http://HOST:PORT/metrics; slot process i "
              + "serves its own on PORT+1+i. Off loopback only with $"
              + ApiToken.ENV
              + " (sent as a bearer token).")
  String metrics;

  /** Set by a parent worker on its slot processes. */
  @Option(names = "--parent-pid", hidden = true)
  Long parentPid;

  @Override
  public Integer call() throws Exception {
    String address = stack.temporalAddressOrNull();
    if (address == null) {
      throw new IllegalArgumentException(
          "no Temporal address: set TEMPORAL_ADDRESS or pass --temporal HOST:PORT");
    }
    stack.contacting(address);
    if (slots != null && slots < 1) {
      throw new IllegalArgumentException("--slots must be at least 1, got " + slots);
    }
    // a slot process's parent probed the root's writes and guarantees already: one probe per
    // machine, not per slot
    StorageRoot root = parentPid == null ? stack.writableStorageRoot() : stack.storageRoot();
    MetricsServer.Address metricsAddress =
        metrics == null ? null : MetricsServer.Address.parse(metrics);
    MetricsServer metricsServer = null;
    if (metricsAddress != null) {
      metricsServer = MetricsServer.start(metricsAddress, ApiToken.fromEnvironment());
      System.out.println("metrics on " + metricsServer.url());
    }
    // A slot process's parent already found the devices and printed the slot lines.
    List<SlotDevice> devices =
        roles.contains(Role.TRAIN) && parentPid == null ? discoverSlots() : List.of();
    boolean slotProcesses = devices.size() > 1;

    Set<Role> here = EnumSet.copyOf(roles);
    List<TrainSlotProcesses.Slot> children = new ArrayList<>();
    if (slotProcesses) {
      here.remove(Role.TRAIN);
      String prefix = identity != null ? identity : host();
      for (SlotDevice d : devices) {
        String id = prefix + "-slot-" + d.slot();
        System.out.println("slot " + d.slot() + ": " + d.describe(false) + ", identity " + id);
        MetricsServer.Address slotMetrics =
            metricsAddress == null ? null : metricsAddress.forSlot(d.slot());
        children.add(
            new TrainSlotProcesses.Slot(
                d.slot(), id, childCommand(address, root, id, slotMetrics), d.environment()));
      }
    } else if (!devices.isEmpty()) {
      String id = identity != null ? identity : ManagementFactory.getRuntimeMXBean().getName();
      System.out.println(
          "slot 0: " + devices.get(0).describe(true) + ", identity " + id + " (this process)");
    }
    System.out.flush();

    KeelWorkerHost host =
        here.isEmpty()
            ? null
            : KeelWorkerHost.start(
                WorkerHostOptions.newBuilder()
                    .setTemporalAddress(address)
                    .setStorageRoot(root)
                    .optRoles(here)
                    .optTrainPool(pool)
                    .optTrainThreads(threads)
                    .optDevServer(devServer)
                    .optIdentity(identity)
                    .build());
    TrainSlotProcesses processes =
        children.isEmpty() ? null : TrainSlotProcesses.start(children, System.out, System.err);
    CountDownLatch stopped = new CountDownLatch(1);
    MetricsServer exporting = metricsServer;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (processes != null) {
                    processes.close();
                  }
                  if (exporting != null) {
                    exporting.close();
                  }
                  if (host != null) {
                    host.close();
                  }
                  stopped.countDown();
                },
                "keel-worker-shutdown"));
    if (parentPid != null) {
      TrainSlotProcesses.stopWhenParentExits(
          parentPid,
          () -> {
            log.warn(
                "the keel worker that started this slot process (pid {}) is gone: stopping",
                parentPid);
            System.exit(0);
          });
    }
    stopped.await();
    return 0;
  }

  /** Finds the devices, prints the one line about them, and gives each slot its device. */
  private List<SlotDevice> discoverSlots() {
    DeviceDiscovery found = DeviceInventory.forEnvironment(System.getenv()).discover();
    int n = slots != null ? slots : SlotAssignment.defaultSlots(found);
    System.out.println(SlotAssignment.summary(found, n));
    return SlotAssignment.assign(
        found, n, Optional.ofNullable(System.getenv(CudaDeviceInventory.VISIBLE_DEVICES)));
  }

  private List<String> childCommand(
      String address, StorageRoot root, String childIdentity, MetricsServer.Address childMetrics) {
    List<String> command = new ArrayList<>(TrainSlotProcesses.thisJvm());
    command.addAll(
        List.of(
            KeelCli.class.getName(),
            "worker",
            "--temporal",
            address,
            "--storage",
            root.toString(),
            "--roles",
            Role.TRAIN.name(),
            "--pool",
            pool,
            "--slots",
            "1",
            "--train-threads",
            Integer.toString(threads),
            "--identity",
            childIdentity,
            "--parent-pid",
            Long.toString(ProcessHandle.current().pid())));
    if (childMetrics != null) {
      command.addAll(List.of("--metrics", childMetrics.toString()));
    }
    if (devServer) {
      command.add("--dev-server");
    }
    return command;
  }

  /**
   * The host part of the SDK's default identity, so slot identities name the machine the same way.
   */
  private static String host() {
    String name = ManagementFactory.getRuntimeMXBean().getName();
    int at = name.indexOf('@');
    return at >= 0 ? name.substring(at + 1) : name;
  }
}
