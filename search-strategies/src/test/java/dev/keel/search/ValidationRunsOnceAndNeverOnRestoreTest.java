package dev.keel.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keel.api.v1.DataSpec;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.search.core.SearchEngine;
import dev.keel.search.core.StateCodec;
import dev.keel.search.sim.Simulator;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A config is validated once where it enters (the workflow start validates again, see the workflows
 * tests); a {@link ValidatedConfig} builds its searcher as is, and a restored searcher
 * (continue-as-new) is never checked.
 */
class ValidationRunsOnceAndNeverOnRestoreTest {
  private static final String NAME = "validation-count";
  private final AtomicInteger validations = new AtomicInteger();

  @BeforeEach
  void count() {
    ExperimentConfigs.onValidate =
        c -> {
          if (NAME.equals(c.getName())) {
            validations.incrementAndGet();
          }
        };
  }

  @AfterEach
  void stopCounting() {
    ExperimentConfigs.onValidate = c -> {};
  }

  private static ExperimentConfig config() {
    return Scenarios.config(Scenarios.searcher("adaptive_asha", 5)).toBuilder()
        .setName(NAME)
        .setData(DataSpec.newBuilder().setTable("t"))
        .build();
  }

  @Test
  void aValidatedConfigBuildsAndPreviewsWithoutValidatingAgain() {
    ValidatedConfig valid = ExperimentConfigs.validated(config());
    assertEquals(1, validations.get());
    Searchers.create(valid).initialOperations();
    Searchers.preview(valid);
    assertEquals(1, validations.get());
  }

  @Test
  void aBareConfigIsValidatedOnceOnTheWayToItsSearcher() {
    Searchers.create(config());
    assertEquals(1, validations.get());
  }

  @Test
  void restoringFromASnapshotNeverValidates() {
    AtomicInteger restores = new AtomicInteger();
    Simulator.of(Scenarios.ORACLE, 4)
        .swappingSearcherAt(
            30,
            s -> {
              restores.incrementAndGet();
              return Searchers.restore(s.snapshot());
            })
        .run(Searchers.create(ExperimentConfigs.validated(config())), 1);
    assertEquals(1, restores.get());
    assertEquals(1, validations.get(), "only the start validated, not the restore");
  }

  @Test
  void aSnapshotWhoseConfigNoLongerPassesStillRestoresAndContinuesIdentically() {
    Searcher original = Searchers.create(ExperimentConfigs.validated(config()));
    original.initialOperations();
    ObjectNode doc = (ObjectNode) StateCodec.read(original.snapshot());
    // as if a rule added since made the running experiment's config invalid: it must still continue
    ((ObjectNode) doc.get("config").get("searcher")).remove("metric");
    ExperimentConfig stale = SearchEngine.snapshotConfig(doc);
    assertFalse(ExperimentConfigs.validate(stale).isEmpty());
    validations.set(0);
    Searcher restored = Searchers.restore(StateCodec.write(doc));
    assertEquals(0, validations.get());
    assertEquals(original.trialCreated(1), restored.trialCreated(1));
    assertEquals(
        original.trialExitedEarly(1, ExitReason.ERRORED),
        restored.trialExitedEarly(1, ExitReason.ERRORED));
  }
}
