package dev.keel.storage.checkpoint;

import dev.keel.activities.ActivityBoundary;
import dev.keel.activities.FailureTypes;
import dev.keel.activities.checkpoint.CheckpointGcActivities;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.api.v1.GcRequest;
import dev.keel.api.v1.GcResult;
import dev.keel.storage.StorageFailures;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the checkpoints the experiment's GC policy dropped, through {@link
 * CheckpointStorage#delete} (MANIFEST first, so an interrupted deletion leaves a checkpoint every
 * reader refuses as partial). A checkpoint already gone counts as deleted, so a retried or repeated
 * collection is a no-op that frees 0 bytes.
 *
 * <p>Every reference is checked before anything is deleted: one outside the storage's checkpoint
 * root, or belonging to another experiment, fails the whole request without retries ({@value
 * FailureTypes#CHECKPOINT_DELETION_REFUSED}). I/O errors are retried; an unusable storage fails at
 * once ({@value FailureTypes#STORAGE_UNUSABLE}).
 */
public final class CheckpointGcActivitiesImpl implements CheckpointGcActivities {
  private static final Logger log = LoggerFactory.getLogger(CheckpointGcActivitiesImpl.class);

  private final CheckpointStorage defaultStorage;
  private final Map<String, CheckpointStorage> customRoots = new ConcurrentHashMap<>();

  /**
   * @param storage the worker's checkpoint root, e.g. {@code
   *     CheckpointStorage.forRoot(root.checkpoints())}; a request naming an experiment's own {@code
   *     checkpoint_storage.storage_path} uses that instead
   */
  public CheckpointGcActivitiesImpl(CheckpointStorage storage) {
    this.defaultStorage = storage;
  }

  @Override
  public GcResult collect(GcRequest request) {
    return ActivityBoundary.call(
        () -> {
          CheckpointStorage storage = storageFor(request);
          for (CheckpointRef ref : request.getDeleteList()) {
            check(storage, request.getExperimentId(), ref);
          }
          ActivityExecutionContext ctx = activityContext();
          long t0 = System.nanoTime();
          long bytes = 0;
          int done = 0;
          for (CheckpointRef ref : request.getDeleteList()) {
            if (ctx != null) {
              ctx.heartbeat(
                  done); // a long collection (many checkpoints, S3) stays alive; a dead worker is
              // noticed
            }
            done++;
            try {
              long freed = storage.delete(ref.getUri());
              CheckpointMeters.BYTES_DELETED.increment((double) freed);
              bytes += freed;
            } catch (IOException e) {
              throw new UncheckedIOException(
                  "deleting checkpoint " + ref.getUri() + ": " + e.getMessage(), e);
            } catch (RuntimeException e) {
              throw StorageFailures.translate(ref.getUri(), e);
            }
          }
          log.info(
              "experiment {}: deleted {} checkpoint(s), {} bytes freed, in {} ms",
              request.getExperimentId(),
              request.getDeleteCount(),
              bytes,
              (System.nanoTime() - t0) / 1_000_000);
          return GcResult.newBuilder()
              .setDeleted(request.getDeleteCount())
              .setBytesFreed(bytes)
              .build();
        });
  }

  private CheckpointStorage storageFor(GcRequest request) {
    String root = request.getCheckpointRoot();
    if (root.isBlank()) {
      return defaultStorage;
    }
    try {
      return customRoots.computeIfAbsent(root, CheckpointStorage::forRoot);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "checkpoint_storage.storage_path: " + e.getMessage(),
          FailureTypes.CHECKPOINT_DELETION_REFUSED);
    }
  }

  private static ActivityExecutionContext activityContext() {
    try {
      return Activity.getExecutionContext();
    } catch (IllegalStateException e) {
      return null; // called directly, not as an activity
    }
  }

  private static void check(CheckpointStorage storage, String experimentId, CheckpointRef ref) {
    String uri = ref.getUri();
    if (uri.isBlank()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "refusing to delete checkpoint " + ref.getUuid() + ": it has no URI",
          FailureTypes.CHECKPOINT_DELETION_REFUSED);
    }
    if (!storage.contains(uri)) {
      throw ApplicationFailure.newNonRetryableFailure(
          "refusing to delete " + uri + ": not inside the checkpoint root " + storage.rootUri(),
          FailureTypes.CHECKPOINT_DELETION_REFUSED);
    }
    if (!experimentId.isEmpty()
        && !ref.getExperimentId().isEmpty()
        && !experimentId.equals(ref.getExperimentId())) {
      throw ApplicationFailure.newNonRetryableFailure(
          "refusing to delete "
              + uri
              + ": it belongs to experiment "
              + ref.getExperimentId()
              + ", not "
              + experimentId,
          FailureTypes.CHECKPOINT_DELETION_REFUSED);
    }
  }
}
