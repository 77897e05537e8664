package dev.keel.service.worker;

import dev.keel.etl.IngestActivitiesImpl;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.train.TrainingActivitiesImpl;
import dev.keel.inference.InferenceActivitiesImpl;
import dev.keel.service.pool.ExperimentDemandObserver;
import dev.keel.service.pool.PoolCapacityActivitiesImpl;
import dev.keel.service.schedule.PipelineSchedules;
import dev.keel.service.schedule.ScheduleActivitiesImpl;
import dev.keel.storage.checkpoint.CheckpointGcActivitiesImpl;
import dev.keel.storage.checkpoint.CheckpointStorage;
import dev.keel.tables.DeltaDatasetReader;
import dev.keel.tables.catalog.CatalogActivitiesImpl;
import dev.keel.tables.drift.DriftActivitiesImpl;
import dev.keel.tables.drift.DriftTable;
import dev.keel.tables.registry.ModelRegistryActivitiesImpl;
import dev.keel.tables.registry.ModelRegistryTable;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;

/**
 * Builds the activity implementations of one worker process from its options. Each role's
 * implementations are created only when that role is served, so a control-only worker never loads
 * DJL or libtorch.
 */
final class ActivityWiring {
  private final WorkerHostOptions options;

  /**
   * Shared by training and inference, created by the first of them: a control worker never touches
   * them.
   */
  private DeltaDatasetReader reader;

  private ModelZoo models;

  ActivityWiring(WorkerHostOptions options) {
    this.options = options;
  }

  IngestActivitiesImpl ingest() {
    return new IngestActivitiesImpl(options.storageRoot());
  }

  /**
   * Catalog tables under {@code <storage>/_keel/} and data-table pinning; light, on {@code
   * keel-control}.
   */
  CatalogActivitiesImpl catalog() {
    return new CatalogActivitiesImpl(options.storageRoot());
  }

  /**
   * The model registry under {@code <storage>/_keel/models} and {@code <storage>/models/}; light,
   * on {@code keel-control}.
   */
  ModelRegistryActivitiesImpl modelRegistry() {
    return new ModelRegistryActivitiesImpl(new ModelRegistryTable(options.storageRoot()));
  }

  /**
   * Training-split statistics and drift reports under {@code <storage>/_keel/drift}; on {@code
   * keel-control} (a split is read once per table version and split, then read back from the
   * table).
   */
  DriftActivitiesImpl drift() {
    return new DriftActivitiesImpl(
        options.storageRoot(), new DriftTable(options.storageRoot()), new DeltaDatasetReader());
  }

  /** Triggers Temporal Schedules through this worker's connection; on {@code keel-control}. */
  ScheduleActivitiesImpl schedules(WorkflowServiceStubs stubs) {
    return new ScheduleActivitiesImpl(new PipelineSchedules(stubs, options.namespace()));
  }

  /**
   * A pool's demand, from the running experiments through this worker's client; on {@code
   * keel-control}.
   */
  ExperimentDemandObserver poolDemand(WorkflowClient client) {
    return new ExperimentDemandObserver(client);
  }

  /**
   * A pool's machines through the Auto Scaling API or tofu apply, as its spec says; on {@code
   * keel-control}.
   */
  PoolCapacityActivitiesImpl poolCapacity() {
    return new PoolCapacityActivitiesImpl();
  }

  /**
   * Deletes checkpoints under {@code <storage>/checkpoints} only; light, on {@code keel-control}.
   */
  CheckpointGcActivitiesImpl checkpointGc() {
    return new CheckpointGcActivitiesImpl(
        CheckpointStorage.forRoot(options.storageRoot().checkpoints()));
  }

  TrainingActivitiesImpl training() {
    return new TrainingActivitiesImpl(
        reader(),
        models(),
        Duration.ofSeconds(1),
        new TrainingActivitiesImpl.WorkerDefaults(
            options.storageRoot().checkpoints(), options.trainThreads()));
  }

  InferenceActivitiesImpl inference() {
    return new InferenceActivitiesImpl(options.storageRoot(), models(), options.trainThreads());
  }

  private DeltaDatasetReader reader() {
    if (reader == null) {
      reader = new DeltaDatasetReader();
    }
    return reader;
  }

  private ModelZoo models() {
    if (models == null) {
      models = ModelZoo.withBuiltIns();
    }
    return models;
  }
}
