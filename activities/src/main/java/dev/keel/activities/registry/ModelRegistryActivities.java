package dev.keel.activities.registry;

import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PromoteModelRequest;
import dev.keel.api.v1.RegisterModelRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * The model registry: versions of named models under {@code <storage
 * root>/models/<name>/<version>/}, recorded in the {@code _keel/models} Delta table. Runs on {@code
 * keel-control}.
 */
@ActivityInterface
public interface ModelRegistryActivities {

  /**
   * Copies the checkpoint into the registry and records the next version of the name as a {@code
   * candidate}. Idempotent: a request whose idempotency key is already recorded returns that
   * version and writes nothing.
   */
  @ActivityMethod(name = "RegisterModel")
  ModelVersion register(RegisterModelRequest request);

  /**
   * One version with its stage history; a name or version that does not exist is a non-retryable
   * failure.
   */
  @ActivityMethod(name = "DescribeModel")
  ModelVersion describe(ModelVersionRef model);

  /**
   * The name's current champion; the default (empty) instance when it has none. The ref's version
   * is ignored.
   */
  @ActivityMethod(name = "DescribeChampion")
  ModelVersion champion(ModelVersionRef name);

  /** Moves a version to a stage; a new champion archives the previous one in the same commit. */
  @ActivityMethod(name = "PromoteModel")
  ModelVersion promote(PromoteModelRequest request);

  /**
   * Records a champion/challenger comparison and, when its decision is {@code promoted}, makes the
   * challenger champion, in one commit. Recording the same comparison again (same challenger,
   * decider and decision) writes nothing.
   */
  @ActivityMethod(name = "RecordComparison")
  ModelVersion recordComparison(Comparison comparison);
}
