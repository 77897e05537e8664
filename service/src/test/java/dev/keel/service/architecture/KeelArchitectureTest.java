package dev.keel.service.architecture;

import static com.tngtech.archunit.lang.SimpleConditionEvent.violated;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Keel's module and determinism rules (docs/architecture.md, "What may import what"), checked on
 * the main classes of every module. It lives in service because service depends on every other
 * module, so all of them are on its test classpath; test classes and test jars (fixtures such as
 * {@code dev.keel.storage.testing}) are not imported. Each rule's message says what to do instead.
 */
@AnalyzeClasses(
    packages = "dev.keel",
    importOptions = {
      ImportOption.DoNotIncludeTests.class,
      KeelArchitectureTest.DoNotIncludeTestJars.class
    })
class KeelArchitectureTest {

  /** Test jars ({@code keel-storage-…-tests.jar}) hold fixtures, not production code. */
  public static final class DoNotIncludeTestJars implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.asURI().toString().contains("-tests.jar");
    }
  }

  /** Module (Maven directory and artifact suffix) → its root package, in dependency order. */
  static final Map<String, String> MODULES = new LinkedHashMap<>();

  static {
    MODULES.put("api", "dev.keel.api");
    MODULES.put("search-strategies", "dev.keel.search");
    MODULES.put("activities", "dev.keel.activities");
    MODULES.put("workflows", "dev.keel.workflows");
    MODULES.put("storage", "dev.keel.storage");
    MODULES.put("tables", "dev.keel.tables");
    MODULES.put("etl", "dev.keel.etl");
    MODULES.put("gpu-workers", "dev.keel.gpu");
    MODULES.put("inference", "dev.keel.inference");
    MODULES.put("service", "dev.keel.service");
    MODULES.put("benchmarks", "dev.keel.benchmarks");
  }

  /** The modules whose main classes must be here; a rule over nothing would pass silently. */
  @ArchTest
  static void everyModuleIsImported(JavaClasses classes) {
    Set<String> missing = new TreeSet<>();
    MODULES.forEach(
        (module, pkg) -> {
          if (!module.equals("benchmarks") && classes.stream().noneMatch(c -> inPackage(c, pkg))) {
            missing.add(module);
          }
        });
    if (!missing.isEmpty()) {
      throw new AssertionError(
          "no main classes imported for "
              + missing
              + ": service must depend on every module (and the module must have main classes)");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Determinism: workflow code replays, so it may not touch the outside world or ask for time,
  // randomness or threads except through Temporal's Workflow API.
  // ---------------------------------------------------------------------------------------------

  /**
   * Classes whose use in workflow code breaks replay (I/O, clocks, randomness, threads, heavy
   * libraries).
   */
  static final DescribedPredicate<JavaClass> NONDETERMINISTIC_OR_IO =
      DescribedPredicate.describe(
          "do I/O (java.io streams and files, java.nio.file, java.net), randomness or threads (thread pools, "
              + "java.util.concurrent), or belong to the AWS SDK, Delta, Hadoop, Parquet or DJL",
          c -> {
            String name = c.getName();
            String pkg = c.getPackageName();
            if (pkg.equals("java.io")) {
              // exceptions and Serializable are not I/O; everything else in java.io (files,
              // streams,
              // readers, writers, System.out's PrintStream) is
              return !Set.of(
                      "java.io.IOException", "java.io.UncheckedIOException", "java.io.Serializable")
                  .contains(name);
            }
            if (pkg.startsWith("java.util.concurrent")) {
              return !name.equals("java.util.concurrent.TimeUnit");
            }
            return pkg.startsWith("java.nio.file")
                || pkg.startsWith("java.net")
                || Set.of(
                        "java.util.Random",
                        "java.util.SplittableRandom",
                        "java.security.SecureRandom",
                        "java.lang.Thread",
                        "java.lang.Runtime",
                        "java.lang.ProcessBuilder",
                        "java.time.Clock")
                    .contains(name)
                || startsWithAny(
                    pkg,
                    "software.amazon.",
                    "io.delta.",
                    "ai.djl.",
                    "org.apache.hadoop.",
                    "org.apache.parquet.");
          });

  /** Calls that read the clock, the environment or a random source. */
  static final DescribedPredicate<JavaAccess<?>> NONDETERMINISTIC_CALL =
      DescribedPredicate.describe(
          "it reads the clock, the environment or a random source (System.currentTimeMillis/nanoTime/getenv/"
              + "getProperty, Math.random, UUID.randomUUID, java.time's now())",
          access -> {
            String owner = access.getTargetOwner().getName();
            String method = access.getName();
            return (owner.equals("java.lang.System")
                    && Set.of(
                            "currentTimeMillis",
                            "nanoTime",
                            "getenv",
                            "getProperty",
                            "getProperties")
                        .contains(method))
                || ((owner.equals("java.lang.Math") || owner.equals("java.lang.StrictMath"))
                    && method.equals("random"))
                || (owner.equals("java.util.UUID") && method.equals("randomUUID"))
                || (access.getTargetOwner().getPackageName().equals("java.time")
                    && method.equals("now"));
          });

  static final String DETERMINISM_FIX =
      "Workflow code must replay identically: use Workflow.currentTimeMillis(), "
          + "Workflow.newRandom(), Workflow.randomUUID(), Workflow.sleep()/newTimer() and Async/Promise instead of "
          + "clocks, random sources and threads; put I/O (files, S3, Delta, DJL, the network) in an activity "
          + "(activities module: the interface; storage/tables/etl/gpu-workers/inference: the implementation) "
          + "and pass table URIs and checkpoint references, never the data. Configuration comes in the workflow "
          + "input, not from System.getenv/getProperty.";

  @ArchTest
  static final ArchRule workflowCodeIsDeterministic =
      noClasses()
          .that()
          .resideInAPackage("dev.keel.workflows..")
          .should()
          .dependOnClassesThat(NONDETERMINISTIC_OR_IO)
          .orShould()
          .accessTargetWhere(NONDETERMINISTIC_CALL)
          .orShould()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.keel.storage..",
              "dev.keel.tables..",
              "dev.keel.etl..",
              "dev.keel.gpu..",
              "dev.keel.inference..",
              "dev.keel.service..",
              "dev.keel.benchmarks..")
          .because(DETERMINISM_FIX);

  /**
   * The same ban on every hand-written Keel class that workflow code reaches (the searchers, config
   * validation, activity contracts, ...), since workflow code runs them inline. Generated protobuf
   * messages ({@code dev.keel.api.v1}) are followed no further: they are values here, and their
   * parse/write methods (streams) are never called from workflow code.
   */
  @ArchTest
  static void codeReachedFromWorkflowsIsDeterministic(JavaClasses classes) {
    Map<JavaClass, JavaClass> reachedVia =
        reachableFrom(
            classes.stream()
                .filter(c -> inPackage(c, "dev.keel.workflows"))
                .collect(Collectors.toList()));
    DescribedPredicate<JavaClass> reached =
        DescribedPredicate.describe(
            "are Keel classes reached from workflow code (outside dev.keel.workflows)",
            c -> reachedVia.containsKey(c) && !inPackage(c, "dev.keel.workflows"));
    classes()
        .that(reached)
        .should(
            new ArchCondition<>(
                "not depend on classes that "
                    + NONDETERMINISTIC_OR_IO.getDescription()
                    + ", nor make a call where "
                    + NONDETERMINISTIC_CALL.getDescription()) {
              @Override
              public void check(JavaClass c, ConditionEvents events) {
                String path = pathTo(c, reachedVia);
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                  if (NONDETERMINISTIC_OR_IO.test(d.getTargetClass())) {
                    events.add(
                        violated(
                            c, d.getDescription() + " [reached from workflow code: " + path + "]"));
                  }
                }
                for (JavaAccess<?> a : c.getAccessesFromSelf()) {
                  if (NONDETERMINISTIC_CALL.test(a)) {
                    events.add(
                        violated(
                            c, a.getDescription() + " [reached from workflow code: " + path + "]"));
                  }
                }
              }
            })
        .allowEmptyShould(true)
        .because(
            DETERMINISM_FIX
                + " A helper that workflow code calls is workflow code too: keep its I/O "
                + "in another class, or move the helper out of the workflow's reach.")
        .check(classes);
  }

  /**
   * Searchers run inside the experiment workflow and in the simulator: pure functions of their
   * inputs.
   */
  @ArchTest
  static final ArchRule searchStrategiesArePure =
      noClasses()
          .that()
          .resideInAPackage("dev.keel.search..")
          .should()
          .dependOnClassesThat(NONDETERMINISTIC_OR_IO)
          .orShould()
          .accessTargetWhere(NONDETERMINISTIC_CALL)
          .orShould()
          .dependOnClassesThat()
          .resideInAPackage("io.temporal..")
          .because(
              "search-strategies holds pure deterministic searchers and their simulator: no Temporal, no I/O, "
                  + "no clocks or random sources other than the searcher's own seeded generator (dev.keel.search.core). "
                  + "Workflow-side concerns go in workflows, files in the caller (service or benchmarks).");

  // ---------------------------------------------------------------------------------------------
  // What each module may use
  // ---------------------------------------------------------------------------------------------

  @ArchTest
  static final ArchRule activitiesAreContractsOnly =
      noClasses()
          .that()
          .resideInAPackage("dev.keel.activities..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.keel.search..",
              "dev.keel.workflows..",
              "dev.keel.storage..",
              "dev.keel.tables..",
              "dev.keel.etl..",
              "dev.keel.gpu..",
              "dev.keel.inference..",
              "dev.keel.service..",
              "dev.keel.benchmarks..",
              "software.amazon..",
              "io.delta..",
              "ai.djl..",
              "org.apache.hadoop..",
              "org.apache.parquet..")
          .because(
              "activities holds contracts only (activity interfaces, options, failure types, task queues) that "
                  + "workflows and every worker share; the implementation goes in storage, tables, etl, gpu-workers or "
                  + "inference, which depend on activities, never the other way round.");

  @ArchTest
  static final ArchRule storageAndTablesDoNotUseDjl =
      noClasses()
          .that()
          .resideInAnyPackage("dev.keel.storage..", "dev.keel.tables..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("ai.djl..")
          .because(
              "the keel-control worker runs storage and tables (catalog, checkpoint GC) without DJL on its "
                  + "classpath: tensor code (model <-> checkpoint) belongs in gpu-workers; storage and tables move bytes "
                  + "and rows.");

  @ArchTest
  static final ArchRule storageDoesNotUseDelta =
      noClasses()
          .that()
          .resideInAPackage("dev.keel.storage..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "io.delta..", "org.apache.hadoop..", "org.apache.parquet..", "dev.keel.tables..")
          .because(
              "storage sits below tables (tables' Delta log store and file system use storage's S3 access): "
                  + "Delta, Hadoop and Parquet code goes in tables, and storage may not call back up into it.");

  /** The module table of docs/architecture.md, over packages. */
  @ArchTest
  static final ArchRule modulesUseOnlyTheModulesBelowThem =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .withOptionalLayers(true)
          .layer("api")
          .definedBy("dev.keel.api..")
          .layer("search-strategies")
          .definedBy("dev.keel.search..")
          .layer("activities")
          .definedBy("dev.keel.activities..")
          .layer("workflows")
          .definedBy("dev.keel.workflows..")
          .layer("storage")
          .definedBy("dev.keel.storage..")
          .layer("tables")
          .definedBy("dev.keel.tables..")
          .layer("etl")
          .definedBy("dev.keel.etl..")
          .layer("gpu-workers")
          .definedBy("dev.keel.gpu..")
          .layer("inference")
          .definedBy("dev.keel.inference..")
          .layer("service")
          .definedBy("dev.keel.service..")
          .layer("benchmarks")
          .definedBy("dev.keel.benchmarks..")
          .whereLayer("api")
          .mayNotAccessAnyLayer()
          .whereLayer("search-strategies")
          .mayOnlyAccessLayers("api")
          .whereLayer("activities")
          .mayOnlyAccessLayers("api")
          .whereLayer("workflows")
          .mayOnlyAccessLayers("api", "activities", "search-strategies")
          .whereLayer("storage")
          .mayOnlyAccessLayers("api", "activities")
          .whereLayer("tables")
          .mayOnlyAccessLayers("api", "activities", "storage")
          .whereLayer("etl")
          .mayOnlyAccessLayers("api", "activities", "storage", "tables")
          .whereLayer("gpu-workers")
          .mayOnlyAccessLayers("api", "activities", "storage", "tables")
          .whereLayer("inference")
          .mayOnlyAccessLayers("api", "activities", "storage", "tables", "gpu-workers")
          .whereLayer("service")
          .mayOnlyAccessLayers(
              "api",
              "search-strategies",
              "activities",
              "workflows",
              "storage",
              "tables",
              "etl",
              "gpu-workers",
              "inference")
          .whereLayer("benchmarks")
          .mayOnlyAccessLayers(
              "api",
              "search-strategies",
              "activities",
              "workflows",
              "storage",
              "tables",
              "etl",
              "gpu-workers",
              "inference",
              "service")
          .ensureAllClassesAreContainedInArchitecture()
          .because(
              "each module may use only the modules listed for it in docs/architecture.md. Move the code "
                  + "down to a module both sides may use (a shared type to api, an activity contract to activities) or "
                  + "call the other module through an activity; change the table, the module's pom and this rule "
                  + "together only when the design changes. A new top-level package needs a module in this table.");

  /**
   * A package belongs to exactly one module: otherwise the package rules above check the wrong
   * module.
   */
  @ArchTest
  static final ArchRule packagesLiveInTheirModule =
      classes()
          .should(
              new ArchCondition<>("live in the module that owns their package") {
                @Override
                public void check(JavaClass c, ConditionEvents events) {
                  Optional<String> module = moduleOf(c);
                  String location = c.getSource().map(s -> s.getUri().toString()).orElse("");
                  if (module.isEmpty()) {
                    events.add(
                        violated(
                            c,
                            c.getName() + " is in no module's package (" + MODULES.values() + ")"));
                  } else if (!location.contains("/" + module.get() + "/target/")
                      && !location.contains("/keel-" + module.get() + "-")
                      && !location.contains("/keel-" + module.get() + "/")) {
                    events.add(
                        violated(
                            c,
                            c.getName()
                                + " belongs to module "
                                + module.get()
                                + " by its package but was "
                                + "loaded from "
                                + location));
                  }
                }
              })
          .because(
              "packages name their module (dev.keel.tables.. is the tables module): put the class in the "
                  + "module its package names, or rename the package.");

  // ---------------------------------------------------------------------------------------------
  // Internals
  // ---------------------------------------------------------------------------------------------

  /**
   * Activity and workflow implementations are a module's internals: other modules reach them
   * through the contract (the interface in activities or workflows, called through Temporal), and
   * only the composition roots wire them to workers.
   */
  @ArchTest
  static final ArchRule temporalImplementationsAreWiredOnlyByTheCompositionRoot =
      classes()
          .that(
              DescribedPredicate.describe(
                  "implement a Temporal @ActivityInterface or @WorkflowInterface",
                  c ->
                      !c.isInterface()
                          && c.getAllRawInterfaces().stream()
                              .anyMatch(
                                  i ->
                                      i.isAnnotatedWith("io.temporal.activity.ActivityInterface")
                                          || i.isAnnotatedWith(
                                              "io.temporal.workflow.WorkflowInterface"))))
          .should(
              new ArchCondition<>("be used only by their own module, service and benchmarks") {
                @Override
                public void check(JavaClass impl, ConditionEvents events) {
                  Optional<String> own = moduleOf(impl);
                  for (Dependency d : impl.getDirectDependenciesToSelf()) {
                    Optional<String> from = moduleOf(d.getOriginClass());
                    if (!from.equals(own)
                        && !from.equals(Optional.of("service"))
                        && !from.equals(Optional.of("benchmarks"))) {
                      events.add(violated(impl, d.getDescription()));
                    }
                  }
                }
              })
          .because(
              "an implementation is reached through its contract: call the activity through a stub (or a "
                  + "child workflow) and let service's KeelWorkerHost/ActivityWiring register the implementation; "
                  + "share code through a module both sides may depend on instead.");

  @ArchTest
  static final ArchRule mainCodeDoesNotUseTestFixtures =
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.keel..testing..", "org.junit..", "org.gaul.s3proxy..", "io.temporal.testing..")
          .because(
              "test fixtures (dev.keel.*.testing in the modules' test jars, S3Proxy, JUnit, Temporal's test "
                  + "environment) are not on the production classpath: keep them in src/test, or move what production "
                  + "needs into main code of the module that owns it.");

  @ArchTest
  static final ArchRule onlyTheDevStackUsesTemporalInternals =
      noClasses()
          .that()
          .resideOutsideOfPackage("dev.keel.service.dev..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.temporal.internal..")
          .because(
              "io.temporal.internal is not Temporal's API and changes without notice; only the dev stack's "
                  + "in-process server (dev.keel.service.dev.LoopbackTemporalServer) may start it. Use the public "
                  + "io.temporal.client/worker/workflow/activity API.");

  /** Activity implementations and their nested classes: where Keel's failures become Temporal's. */
  static final DescribedPredicate<JavaClass> ACTIVITY_BOUNDARY =
      DescribedPredicate.describe(
          "an activity implementation (*ActivitiesImpl) or a class nested in one",
          c -> c.getName().matches(".*ActivitiesImpl(\\$.*)?"));

  @ArchTest
  static final ArchRule libraryCodeIsFreeOfTemporal =
      noClasses()
          .that()
          .resideInAnyPackage(
              "dev.keel.api..",
              "dev.keel.storage..",
              "dev.keel.tables..",
              "dev.keel.etl..",
              "dev.keel.gpu..",
              "dev.keel.inference..")
          .and()
          .resideOutsideOfPackages("dev.keel.api.temporal..", "dev.keel.gpu.gang..")
          .and(DescribedPredicate.not(ACTIVITY_BOUNDARY))
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.temporal..")
          .because(
              "retrying or not is decided at the activity boundary: library code throws "
                  + "dev.keel.activities.KeelFailure (type and retryability) and each *ActivitiesImpl maps it "
                  + "with dev.keel.activities.ActivityBoundary. Only the activity implementations, the data "
                  + "converter (dev.keel.api.temporal) and the gang rendezvous, which queries its workflow "
                  + "(dev.keel.gpu.gang), talk to Temporal.");

  /** The trainer, the Delta writer and readers and the ETL's sources, which must run anywhere. */
  @ArchTest
  static final ArchRule trainerReadersAndWritersRunWithoutTemporal =
      noClasses()
          .that()
          .haveFullyQualifiedName("dev.keel.gpu.train.Trainer")
          .or()
          .haveFullyQualifiedName("dev.keel.tables.DeltaTableWriter")
          .or()
          .haveFullyQualifiedName("dev.keel.tables.DeltaDatasetReader")
          .or()
          .haveFullyQualifiedName("dev.keel.tables.TableRows")
          .or()
          .haveFullyQualifiedName("dev.keel.tables.SplitCounter")
          .or()
          .haveFullyQualifiedName("dev.keel.etl.tabular.CsvSource")
          .or()
          .haveFullyQualifiedName("dev.keel.etl.tabular.ParquetSource")
          .should()
          .transitivelyDependOnClassesThat()
          .resideInAPackage("io.temporal..")
          .because(
              "they are Keel's library: a notebook, a benchmark or another engine calls them without a "
                  + "Temporal worker; what they raise is a KeelFailure.");

  @ArchTest
  static final ArchRule onlyKernelInternalsUsesDeltaKernelInternals =
      noClasses()
          .that()
          .doNotHaveFullyQualifiedName("dev.keel.tables.KernelInternals")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.delta.kernel.internal..")
          .because(
              "io.delta.kernel.internal is not Delta Kernel's API and changes without notice; "
                  + "dev.keel.tables.KernelInternals is its one door (the scan loop over data files, "
                  + "REPLACE TABLE). Read tables through it or through dev.keel.tables.");

  // ---------------------------------------------------------------------------------------------
  // Cycles
  // ---------------------------------------------------------------------------------------------

  /**
   * No cycles between the second-level packages (dev.keel.gpu.train, dev.keel.search.asha, ...). A
   * module's root package is left out: in search-strategies and workflows it is the module's face
   * ({@code Searchers}, {@code SearchPreview}, {@code KeelWorkflows}) that both wires the
   * subpackages and holds the types they share. Cycles between modules cannot compile (Maven
   * forbids them).
   */
  @ArchTest
  static final ArchRule subpackagesAreFreeOfCycles =
      slices()
          .matching("dev.keel.(*).(*)..")
          .namingSlices("dev.keel.$1.$2")
          .should()
          .beFreeOfCycles()
          .because(
              "a cycle between packages means neither can change alone: move the shared type to the package "
                  + "both use (or to the module's root package), or invert the dependency with an interface.");

  // ---------------------------------------------------------------------------------------------

  static boolean inPackage(JavaClass c, String pkg) {
    return c.getPackageName().equals(pkg) || c.getPackageName().startsWith(pkg + ".");
  }

  static boolean startsWithAny(String s, String... prefixes) {
    for (String p : prefixes) {
      if (s.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  static Optional<String> moduleOf(JavaClass c) {
    return MODULES.entrySet().stream()
        .filter(e -> inPackage(c, e.getValue()))
        .map(Map.Entry::getKey)
        .findFirst();
  }

  /**
   * Breadth-first over dependencies into hand-written Keel classes; value: the class it was reached
   * from.
   */
  static Map<JavaClass, JavaClass> reachableFrom(List<JavaClass> roots) {
    Map<JavaClass, JavaClass> via = new LinkedHashMap<>();
    Deque<JavaClass> queue = new ArrayDeque<>();
    for (JavaClass root : roots) {
      via.put(root, null);
      queue.add(root);
    }
    while (!queue.isEmpty()) {
      JavaClass c = queue.poll();
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        JavaClass t = d.getTargetClass();
        if (inPackage(t, "dev.keel") && !inPackage(t, "dev.keel.api.v1") && !via.containsKey(t)) {
          via.put(t, c);
          queue.add(t);
        }
      }
    }
    return via;
  }

  static String pathTo(JavaClass c, Map<JavaClass, JavaClass> via) {
    List<String> path = new ArrayList<>();
    for (JavaClass at = c; at != null; at = via.get(at)) {
      path.add(0, at.getSimpleName().isEmpty() ? at.getName() : at.getSimpleName());
    }
    return String.join(" -> ", path);
  }
}
