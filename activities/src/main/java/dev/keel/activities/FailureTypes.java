package dev.keel.activities;

/**
 * The type of every non-retryable failure Keel raises, in one place: activities throw them,
 * activity options list them as not to be retried, and workflows and clients tell them apart by
 * these names. They are part of the contract (they appear in histories and client errors), so a
 * value never changes.
 */
public final class FailureTypes {
  // ---- any activity that touches the storage root
  /** The storage root refuses access or does not exist (credentials, bucket, permissions). */
  public static final String STORAGE_UNUSABLE = "StorageUnusable";

  /**
   * The run names a storage root (it travels in every activity's header) that the worker picking up
   * the activity does not serve: the run would split its artefacts across two roots.
   */
  public static final String STORAGE_ROOT_MISMATCH = "StorageRootMismatch";

  // ---- training (TrainingActivities)
  /** The loss became NaN or diverged: the trial's hyperparameters, not the worker, are at fault. */
  public static final String INVALID_HYPERPARAMETER = "InvalidHyperparameter";

  /** A train request field is unusable; the message starts with the field path. */
  public static final String INVALID_TRAIN_REQUEST = "InvalidTrainRequest";

  /** A checkpoint failed verification (training resume or inference). */
  public static final String CORRUPT_CHECKPOINT = "CorruptCheckpoint";

  /**
   * The ranks of a gang disagree on model, hyperparameters, data or parameters; the message names
   * the difference.
   */
  public static final String GANG_MISMATCH = "GangMismatch";

  /**
   * This worker cannot train as a rank of a gang (no collective library, e.g. no C++ toolchain at
   * build time): another worker may, so it is retryable, but the message says what is missing.
   */
  public static final String COLLECTIVES_UNAVAILABLE = "CollectivesUnavailable";

  // ---- inference (InferenceActivities, the Inference workflow)
  /**
   * An inference request that cannot run: a missing field, table version, split or rows, or a
   * predictions table of another schema; the message names it.
   */
  public static final String INVALID_INFERENCE_REQUEST = "InvalidInferenceRequest";

  // ---- ingest and catalog (IngestActivities, CatalogActivities)
  /** A missing table or version, or a table that is not a usable Delta table. */
  public static final String INVALID_TABLE = "InvalidTable";

  /** A malformed request (empty table URI, bad catalog row, ...). */
  public static final String INVALID_ARGUMENT = "InvalidArgument";

  public static final String UNKNOWN_FORMAT = "UnknownFormat";
  public static final String DATASET_MISSING = "DatasetMissing";
  public static final String DATASET_CORRUPT = "DatasetCorrupt";

  // ---- model registry (ModelRegistryActivities)
  /**
   * A model name or version that does not exist, a bad name or stage, a registration without a
   * checkpoint.
   */
  public static final String INVALID_MODEL = "InvalidModel";

  // ---- schedules (ScheduleActivities)
  /** A drift trigger names a Temporal Schedule that does not exist. */
  public static final String SCHEDULE_NOT_FOUND = "ScheduleNotFound";

  // ---- pool provisioning (PoolCapacityActivities)
  /**
   * The cloud or tofu refused a pool request (a missing group, an unknown instance type, a rejected
   * apply, a timed-out apply): retrying would not help; the message is the provider's reason.
   */
  public static final String POOL_PROVIDER_REFUSED = "PoolProviderRefused";

  /** A pool spec that cannot run; the message names the field. */
  public static final String INVALID_POOL_SPEC = "InvalidPoolSpec";

  // ---- checkpoint GC (CheckpointGcActivities)
  /**
   * A request naming a checkpoint the worker must not delete (outside its root, another
   * experiment's).
   */
  public static final String CHECKPOINT_DELETION_REFUSED = "CheckpointDeletionRefused";

  // ---- workflows: the failure a workflow ends with when its input cannot run
  public static final String INVALID_EXPERIMENT_CONFIG = "InvalidExperimentConfig";

  /** The experiment's data table or version does not exist. */
  public static final String INVALID_EXPERIMENT_DATA = "InvalidExperimentData";

  public static final String INVALID_PIPELINE_REQUEST = "InvalidPipelineRequest";

  /** The pipeline's experiment ended without a checkpoint to train on, register or score. */
  public static final String SEARCH_FOUND_NO_MODEL = "SearchFoundNoModel";

  private FailureTypes() {}
}
