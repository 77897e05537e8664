package dev.keel.service.cli;

import dev.keel.api.config.EnumNames;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PromoteModelRequest;
import dev.keel.service.model.ModelExport;
import dev.keel.service.model.ModelTable;
import dev.keel.service.security.AuditLines;
import dev.keel.tables.audit.AuditTable;
import dev.keel.tables.drift.DriftTable;
import dev.keel.tables.registry.ModelRegistryTable;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "model",
    mixinStandardHelpOptions = true,
    description =
        "The model registry of the storage root: list, describe, promote and export model versions.",
    subcommands = {
      ModelCommand.ListVersions.class,
      ModelCommand.Describe.class,
      ModelCommand.Promote.class,
      ModelCommand.Export.class
    })
final class ModelCommand implements Runnable {
  @Override
  public void run() {
    new picocli.CommandLine(this).usage(System.out);
  }

  /** The registry of the configured storage root; reads need no Temporal. */
  abstract static class WithRegistry implements Callable<Integer> {
    @Mixin StackOptions.StorageOnly stack;

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Override
    public Integer call() {
      return run(new ModelRegistryTable(stack.storageRoot()));
    }

    abstract int run(ModelRegistryTable registry);
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Every version of every model, or of one.")
  static final class ListVersions extends WithRegistry {
    @Parameters(paramLabel = "NAME", arity = "0..1", description = "Only this model's versions.")
    String name;

    @Option(
        names = "--stage",
        paramLabel = "STAGE",
        description = "Only versions in this stage: candidate, champion or archived.")
    String stage;

    @Option(
        names = "--offset",
        defaultValue = "0",
        description = "Skip this many (default: ${DEFAULT-VALUE}).")
    int offset;

    @Option(
        names = "--limit",
        defaultValue = "50",
        description = "At most this many, 1..1000 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Override
    int run(ModelRegistryTable registry) {
      var versions = name == null ? registry.list() : registry.list(name);
      if (name != null && versions.isEmpty()) {
        registry.describe(name, 1); // a name that does not exist: say so, naming those that do
      }
      ModelTable.Page page = ModelTable.page(versions, Optional.ofNullable(stage), offset, limit);
      System.out.print(json ? ModelTable.json(page) + "\n" : ModelTable.list(page.versions()));
      return 0;
    }
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description = {
        "One model version's lineage, metrics, stage history and drift reports.",
        "Its checkpoint, data version, experiment and trial, code commit, metrics, stages and champion/challenger"
            + " comparisons, and the drift reports of its inference runs."
      })
  static final class Describe extends WithRegistry {
    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Parameters(index = "1", paramLabel = "VERSION")
    long version;

    @Override
    int run(ModelRegistryTable registry) {
      var v = registry.describe(name, version);
      System.out.print(
          json
              ? ModelTable.json(v) + "\n"
              : ModelTable.describe(v)
                  + ModelTable.drift(
                      new DriftTable(stack.storageRoot()).reports(name + "/" + version))
                  + AuditLines.text(
                      new AuditTable(stack.storageRoot()).read(Optional.of(name + "/" + version))));
      return 0;
    }
  }

  @Command(
      name = "promote",
      mixinStandardHelpOptions = true,
      description = "Move a version to a stage; a new champion archives the previous one.")
  static final class Promote extends WithRegistry {
    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Parameters(index = "1", paramLabel = "VERSION")
    long version;

    @Option(
        names = "--stage",
        defaultValue = "champion",
        description = "champion (default), candidate or archived.")
    String stage;

    @Option(names = "--reason", defaultValue = "", description = "Why, for the stage history.")
    String reason;

    @Override
    int run(ModelRegistryTable registry) {
      if (!EnumNames.names(ModelStage.getDescriptor()).contains(stage)) {
        throw new IllegalArgumentException(
            "--stage: '"
                + stage
                + "' is not one of "
                + EnumNames.expected(ModelStage.getDescriptor()));
      }
      var v =
          registry.promote(
              PromoteModelRequest.newBuilder()
                  .setModel(ModelVersionRef.newBuilder().setName(name).setVersion(version))
                  .setStage(ModelStage.valueOf(stage))
                  .setReason(reason.isEmpty() ? "promoted by hand" : reason)
                  .setWho(CliUser.name())
                  .build());
      System.out.print(
          json
              ? ModelTable.json(v) + "\n"
              : v.getName() + " v" + v.getVersion() + " is now " + v.getStage() + "\n");
      return 0;
    }
  }

  @Command(
      name = "export",
      mixinStandardHelpOptions = true,
      description = {
        "Write a registered TorchScript model as model.pt and model.json into a directory.",
        "model.pt is the trained module: torch.jit.load reads it, and TorchServe, Triton's PyTorch backend"
            + " and DJL Serving serve it. model.json says what it takes and gives: input shape and"
            + " values, output, class names, and the file and data it was trained from."
      })
  static final class Export extends WithRegistry {
    @Parameters(index = "0", paramLabel = "NAME")
    String name;

    @Parameters(index = "1", paramLabel = "VERSION")
    long version;

    @Option(
        names = "--to",
        paramLabel = "DIR",
        required = true,
        description = "Directory to write into (created if missing; the two files are replaced).")
    Path to;

    @Override
    int run(ModelRegistryTable registry) {
      try {
        ModelExport.Exported out = ModelExport.write(registry.describe(name, version), to);
        if (json) {
          System.out.println(ModelExport.json(out));
        } else {
          System.out.printf(
              "wrote %s (%d bytes, sha256 %s) and %s%n",
              out.model(), out.bytes(), out.sha256(), out.description());
        }
        return 0;
      } catch (java.io.IOException e) {
        throw new FriendlyErrors.Failure(
            "exporting " + name + " v" + version + " to " + to + ": " + e.getMessage(), e);
      }
    }
  }
}
