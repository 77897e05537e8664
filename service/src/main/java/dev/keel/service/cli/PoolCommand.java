package dev.keel.service.cli;

import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.PoolStatus;
import dev.keel.service.pool.PoolProvisioners;
import dev.keel.service.pool.PoolTable;
import io.temporal.client.WorkflowClient;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "pool",
    mixinStandardHelpOptions = true,
    description = {
      "Pools of worker machines sized to their queue: list, describe, start, stop.",
      "One provisioner workflow per pool (pool-<name> on keel-control) asks an Auto Scaling group (or tofu apply) for"
          + " as many instances as the queued and running gangs need."
    },
    subcommands = {
      PoolCommand.ListPools.class,
      PoolCommand.Describe.class,
      PoolCommand.Start.class,
      PoolCommand.Stop.class
    })
final class PoolCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description =
          "Every running provisioner: desired, running (busy/idle), starting and failed instances, gangs, last decision.")
  static final class ListPools extends ExperimentCommand.Controlling {
    @Option(names = "--json", description = "Print JSON, as GET /api/v1/pools returns it.")
    boolean json;

    @Override
    int run(WorkflowClient client) {
      List<PoolStatus> pools = PoolProvisioners.list(client);
      System.out.print(json ? PoolTable.json(pools) + "\n" : PoolTable.list(pools, Instant.now()));
      return 0;
    }
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description =
          "One pool: its spec, instances, demand, the last decision with its reason, the last error and back-off.")
  static final class Describe extends ExperimentCommand.Controlling {
    @Parameters(paramLabel = "POOL")
    String pool;

    @Option(names = "--json", description = "Print JSON, as GET /api/v1/pools/{name} returns it.")
    boolean json;

    @Override
    int run(WorkflowClient client) {
      PoolStatus s =
          PoolProvisioners.status(client, pool)
              .orElseThrow(
                  () -> new IllegalArgumentException(PoolProvisioners.unknown(client, pool)));
      System.out.print(json ? PoolTable.json(s) + "\n" : PoolTable.describe(s, Instant.now()));
      return 0;
    }
  }

  @Command(
      name = "start",
      mixinStandardHelpOptions = true,
      description = {
        "Validate a pool spec (YAML/JSON) and start its provisioner; a running one takes the new spec.",
        "See docs/configuration.md, 'Pool spec', for the fields."
      })
  static final class Start extends ExperimentCommand.Controlling {
    @Parameters(paramLabel = "SPEC")
    Path file;

    @Override
    int run(WorkflowClient client) {
      PoolSpec spec = PoolProvisioners.loader().fromFile(file);
      PoolProvisioners.Started started = PoolProvisioners.start(client, spec);
      System.out.println(
          (started == PoolProvisioners.Started.STARTED ? "started" : "updated")
              + " the provisioner of pool "
              + spec.getName()
              + " (workflow pool-"
              + spec.getName()
              + ")");
      return 0;
    }
  }

  @Command(
      name = "stop",
      mixinStandardHelpOptions = true,
      description =
          "Stop a pool's provisioner after its current look; the group keeps the instances it has.")
  static final class Stop extends ExperimentCommand.Controlling {
    @Parameters(paramLabel = "POOL")
    String pool;

    @Override
    int run(WorkflowClient client) {
      PoolProvisioners.stop(client, pool);
      System.out.println(
          "stopping the provisioner of pool " + pool + "; its instances stay as they are");
      return 0;
    }
  }
}
