package dev.keel.workflows.testing;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.registry.ModelRegistryActivities;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.ModelStage;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PromoteModelRequest;
import dev.keel.api.v1.RegisterModelRequest;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The registry's contract for orchestration tests (the Delta-backed one is tested in the tables
 * module): versions count up per name, the copy gets a {@code registry://} URI, a repeated key
 * returns the first version.
 */
public final class InMemoryModelRegistry implements ModelRegistryActivities {
  public final List<RegisterModelRequest> registered =
      Collections.synchronizedList(new ArrayList<>());
  private final List<ModelVersion> versions = Collections.synchronizedList(new ArrayList<>());

  /** A version that exists before the test runs, e.g. for pipelines that reuse a model. */
  public ModelVersion add(ModelVersion v) {
    versions.add(v);
    return v;
  }

  @Override
  public synchronized ModelVersion register(RegisterModelRequest r) {
    registered.add(r);
    String key = r.getRegisteredBy() + "/" + r.getCheckpoint().getUuid();
    for (ModelVersion v : versions) {
      if (v.getRegisteredBy().equals(key)) {
        return v;
      }
    }
    long next = versions.stream().filter(v -> v.getName().equals(r.getName())).count() + 1;
    return add(
        ModelVersion.newBuilder()
            .setName(r.getName())
            .setVersion(next)
            .setStage(ModelStage.candidate)
            .setCheckpoint(
                r.getCheckpoint().toBuilder()
                    .setUri("registry://" + r.getName() + "/" + next + "/"))
            .setSourceCheckpointUri(r.getCheckpoint().getUri())
            .setConfig(r.getConfig())
            .putAllHparams(r.getHparamsMap())
            .setData(r.getData())
            .setExperimentId(r.getExperimentId())
            .setTrialId(r.getTrialId())
            .setRegisteredBy(key)
            .build());
  }

  @Override
  public ModelVersion describe(ModelVersionRef ref) {
    return versions.stream()
        .filter(v -> v.getName().equals(ref.getName()) && v.getVersion() == ref.getVersion())
        .findFirst()
        .orElseThrow(
            () ->
                ApplicationFailure.newNonRetryableFailure(
                    "model '" + ref.getName() + "' has no version " + ref.getVersion(),
                    FailureTypes.INVALID_MODEL));
  }

  @Override
  public ModelVersion champion(ModelVersionRef name) {
    return versions.stream()
        .filter(v -> v.getName().equals(name.getName()) && v.getStage() == ModelStage.champion)
        .findFirst()
        .orElse(ModelVersion.getDefaultInstance());
  }

  @Override
  public ModelVersion promote(PromoteModelRequest request) {
    throw new UnsupportedOperationException("pipelines promote through recordComparison");
  }

  public final List<Comparison> comparisons = Collections.synchronizedList(new ArrayList<>());

  @Override
  public synchronized ModelVersion recordComparison(Comparison c) {
    comparisons.add(c);
    ModelVersion challenger = describe(c.getChallenger());
    if (c.getDecision() != Comparison.Decision.promoted) {
      return challenger;
    }
    for (int i = 0; i < versions.size(); i++) {
      ModelVersion v = versions.get(i);
      if (v.getName().equals(challenger.getName()) && v.getStage() == ModelStage.champion) {
        versions.set(i, v.toBuilder().setStage(ModelStage.archived).build());
      }
    }
    ModelVersion champion =
        challenger.toBuilder().setStage(ModelStage.champion).addComparisons(c).build();
    versions.set(versions.indexOf(challenger), champion);
    return champion;
  }
}
