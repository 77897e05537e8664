/**
 * The CPU/GPU training path: {@link dev.keel.gpu.train.Trainer} runs one trial from scratch or a
 * checkpoint to a length, deterministically (seeded init, per-epoch shuffles, per-batch dropout
 * seeds) so that a resumed run is bit-identical to an uninterrupted one at the same thread count;
 * {@link dev.keel.gpu.train.TrainingActivitiesImpl} is the Temporal activity around it.
 */
package dev.keel.gpu.train;
