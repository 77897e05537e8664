package dev.keel.gpu.train;

/** Receives {@link TrainingProgress} after every batch; must be cheap (throttle yourself). */
@FunctionalInterface
public interface ProgressListener {
  ProgressListener NONE = p -> {};

  void onProgress(TrainingProgress progress);
}
