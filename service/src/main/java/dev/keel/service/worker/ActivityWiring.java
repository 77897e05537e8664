package dev.keel.service.worker;

import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.etl.catalog.CatalogActivitiesImpl;
import dev.keel.etl.dataset.DatasetReader;
import dev.keel.etl.delta.DeltaDatasetReader;
import dev.keel.gpu.checkpoint.CheckpointGcActivitiesImpl;
import dev.keel.gpu.checkpoint.CheckpointStorage;
import dev.keel.gpu.model.ModelRegistry;
import dev.keel.gpu.train.TrainingActivitiesImpl;
import dev.keel.inference.InferenceActivitiesImpl;
import java.time.Duration;

/** Builds the activity implementations of one worker process from its options. */
final class ActivityWiring {
  private final WorkerHostOptions options;
  private final DatasetReader reader = new DeltaDatasetReader();
  private final ModelRegistry models = ModelRegistry.withBuiltIns();

  ActivityWiring(WorkerHostOptions options) {
    this.options = options;
  }

  IngestActivitiesImpl ingest() {
    return new IngestActivitiesImpl(options.storageRoot());
  }

  /** Catalog tables under {@code <storage>/_keel/} and data-table pinning; light, on {@code keel-control}. */
  CatalogActivitiesImpl catalog() {
    return new CatalogActivitiesImpl(options.storageRoot());
  }

  /** Deletes checkpoints under {@code <storage>/checkpoints} only; light, on {@code keel-control}. */
  CheckpointGcActivitiesImpl checkpointGc() {
    return new CheckpointGcActivitiesImpl(CheckpointStorage.forRoot(options.storageRoot().checkpoints()));
  }

  TrainingActivitiesImpl training() {
    return new TrainingActivitiesImpl(reader, models, Duration.ofSeconds(1),
        new TrainingActivitiesImpl.WorkerDefaults(options.storageRoot().checkpoints(), options.trainThreads()));
  }

  InferenceActivitiesImpl inference() {
    return new InferenceActivitiesImpl(reader, options.storageRoot(), models, options.trainThreads());
  }
}
