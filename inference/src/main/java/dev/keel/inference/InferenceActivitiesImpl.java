package dev.keel.inference;

import dev.keel.activities.FailureTypes;
import dev.keel.activities.infer.InferenceActivities;
import dev.keel.api.v1.InferenceRequest;
import dev.keel.api.v1.InferenceResult;
import dev.keel.api.v1.TableRef;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.ModelRegistry;
import dev.keel.gpu.predict.CheckpointPredictor;
import dev.keel.gpu.predict.Predictions;
import dev.keel.storage.StorageFailures;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.checkpoint.CorruptCheckpointException;
import dev.keel.tables.Columns;
import dev.keel.tables.DeltaTableWriter;
import dev.keel.tables.DeltaTables;
import dev.keel.tables.TableSchemas;
import dev.keel.tables.dataset.DatasetReader;
import dev.keel.tables.dataset.LabeledExamples;
import io.delta.kernel.exceptions.ConcurrentTransactionException;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scores one split of a pinned table version with a verified checkpoint and writes the predictions
 * (id, predicted label, score, checkpoint id, source table version) as one Delta commit that
 * replaces the table's previous rows: each version of the predictions table is one scoring run,
 * and earlier runs stay readable by time travel. The commit carries a Delta transaction id made
 * of checkpoint, source version and split, so a retry after a commit whose activity result was
 * lost writes nothing twice.
 */
public final class InferenceActivitiesImpl implements InferenceActivities {
  private static final Logger log = LoggerFactory.getLogger(InferenceActivitiesImpl.class);
  private static final String TXN_PREFIX = "keel-infer:";

  private final DatasetReader reader;
  private final StorageRoot storage;
  private final ModelRegistry registry;
  private final int threads;

  /**
   * @param storage resolves table names in requests ({@code tables/<name>}); null means requests carry URIs
   * @param threads libtorch intra-op threads; 0 keeps the process setting
   */
  public InferenceActivitiesImpl(DatasetReader reader, StorageRoot storage, ModelRegistry registry, int threads) {
    this.reader = reader;
    this.storage = storage;
    this.registry = registry;
    this.threads = threads;
  }

  @Override
  public InferenceResult score(InferenceRequest request) {
    try {
      return scoreSplit(request);
    } catch (RuntimeException e) {
      // storage refusing access (credentials, bucket): one non-retryable line naming the URI
      String where = storage != null ? storage.toString() : request.getPredictionsTableUri();
      throw StorageFailures.translate(where, e);
    }
  }

  private InferenceResult scoreSplit(InferenceRequest request) {
    if (request.getPredictionsTableUri().isBlank()) {
      throw ApplicationFailure.newNonRetryableFailure("predictions_table_uri: required", FailureTypes.INVALID_INFERENCE_REQUEST);
    }
    long started = System.nanoTime();
    String split = request.getSplit().isEmpty() ? "test" : request.getSplit();
    String tableUri = storage == null ? request.getPredictionsTableUri() : storage.table(request.getPredictionsTableUri());
    LabeledExamples images;
    try {
      images = reader.readExamples(request.getData(), split);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.INVALID_INFERENCE_REQUEST);
    }
    Predictions predictions = predict(request, images);
    Activity.getExecutionContext().heartbeat(images.size());

    String checkpointId = request.getCheckpoint().getUuid();
    long sourceVersion = request.getData().getVersion();
    int n = images.size();
    String[] checkpointIds = new String[n];
    Arrays.fill(checkpointIds, checkpointId);
    long[] sourceVersions = new long[n];
    Arrays.fill(sourceVersions, sourceVersion);
    double[] scores = new double[n];
    for (int i = 0; i < n; i++) {
      scores[i] = predictions.scores()[i];
    }
    DeltaTableWriter writer = new DeltaTableWriter(tableUri, TableSchemas.PREDICTIONS);
    long version;
    try {
      version = writer.newAppend()
          .add(Columns.of(n).add("id", images.ids()).add("predicted_label", predictions.labels()).add("score", scores)
              .add("checkpoint_id", checkpointIds).add("source_table_version", sourceVersions))
          .replaceContents()
          .transactionId(TXN_PREFIX + checkpointId + ":" + request.getData().getUri() + "@" + sourceVersion + ":" + split, 1)
          .commit();
    } catch (ConcurrentTransactionException e) {
      version = DeltaTables.latestVersion(DeltaTables.defaultEngine(), tableUri).orElseThrow();
      log.info("predictions of checkpoint {} on {} were already committed; table {} stays at version {}",
          checkpointId, split, tableUri, version);
    }
    double accuracy = accuracy(predictions.labels(), images.labels());
    log.info("scored {} {} rows with checkpoint {}: accuracy {} -> {} @ {}", n, split, checkpointId, accuracy, tableUri, version);
    return InferenceResult.newBuilder()
        .setPredictions(TableRef.newBuilder().setUri(DeltaTables.displayUri(tableUri)).setVersion(version))
        .setRows(n)
        .setAccuracy(accuracy)
        .setCheckpointUuid(checkpointId)
        .setSeconds((System.nanoTime() - started) / 1e9)
        .build();
  }

  private Predictions predict(InferenceRequest request, LabeledExamples images) {
    try (CheckpointPredictor predictor = CheckpointPredictor.open(request.getCheckpoint().getUri(), registry, threads)) {
      predictor.requireFits(request.getData().getUri() + " v" + request.getData().getVersion(), images);
      return predictor.predict(images);
    } catch (InvalidFieldException e) {
      // a tabular checkpoint on an images table, another feature count, ...: retrying cannot help
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.INVALID_INFERENCE_REQUEST);
    } catch (CorruptCheckpointException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), FailureTypes.CORRUPT_CHECKPOINT);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read checkpoint " + request.getCheckpoint().getUri(), e);
    }
  }

  static double accuracy(int[] predicted, int[] actual) {
    int correct = 0;
    for (int i = 0; i < predicted.length; i++) {
      if (predicted[i] == actual[i]) {
        correct++;
      }
    }
    return predicted.length == 0 ? 0 : (double) correct / predicted.length;
  }
}
