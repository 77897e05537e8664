package dev.keel.tables.registry;

import dev.keel.activities.ActivityBoundary;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.registry.ModelRegistryActivities;
import dev.keel.api.v1.Comparison;
import dev.keel.api.v1.ModelVersion;
import dev.keel.api.v1.ModelVersionRef;
import dev.keel.api.v1.PromoteModelRequest;
import dev.keel.api.v1.RegisterModelRequest;
import dev.keel.storage.StorageFailures;
import dev.keel.storage.checkpoint.CorruptCheckpointException;
import io.temporal.failure.ApplicationFailure;
import java.util.function.Supplier;

/**
 * {@link ModelRegistryActivities} over a {@link ModelRegistryTable}; refusals are non-retryable and
 * name the model.
 */
public final class ModelRegistryActivitiesImpl implements ModelRegistryActivities {
  private final ModelRegistryTable registry;

  public ModelRegistryActivitiesImpl(ModelRegistryTable registry) {
    this.registry = registry;
  }

  @Override
  public ModelVersion register(RegisterModelRequest request) {
    return refusing(() -> registry.register(request));
  }

  @Override
  public ModelVersion describe(ModelVersionRef model) {
    return refusing(() -> registry.describe(model.getName(), model.getVersion()));
  }

  @Override
  public ModelVersion champion(ModelVersionRef name) {
    return refusing(
        () -> registry.champion(name.getName()).orElse(ModelVersion.getDefaultInstance()));
  }

  @Override
  public ModelVersion promote(PromoteModelRequest request) {
    return refusing(() -> registry.promote(request));
  }

  @Override
  public ModelVersion recordComparison(Comparison comparison) {
    return refusing(() -> registry.recordComparison(comparison));
  }

  private ModelVersion refusing(Supplier<ModelVersion> call) {
    return ActivityBoundary.call(() -> storageChecked(call));
  }

  private ModelVersion storageChecked(Supplier<ModelVersion> call) {
    try {
      return call.get();
    } catch (UnknownModelException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.INVALID_MODEL);
    } catch (CorruptCheckpointException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          e.getMessage(), FailureTypes.CORRUPT_CHECKPOINT);
    } catch (RuntimeException e) {
      throw StorageFailures.translate(registry.tableUri(), e);
    }
  }
}
