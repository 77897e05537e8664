/**
 * Trial checkpoints as files: a directory {@code <root>/<experiment>/<trial>/<uuid>/} holding
 * {@value CheckpointFiles#PARAMETERS}, {@value CheckpointFiles#OPTIMIZER}, {@value
 * CheckpointFiles#METADATA} and, written last, a {@value CheckpointFiles#MANIFEST} with the size
 * and SHA-256 of every other file. Writes are atomic (locally: staged next to the target, fsynced,
 * renamed; in S3: uploaded with the MANIFEST last and only if absent); reads verify the manifest
 * and refuse partial or corrupt checkpoints. Storage access sits behind {@link CheckpointStorage}
 * ({@code file://} and {@code s3://}). Trainers hand a {@link CheckpointSnapshot} (bytes) to a
 * {@link BackgroundCheckpointWriter}, which writes it while training goes on. Checkpoint GC ({@link
 * CheckpointGcActivitiesImpl}) runs on the control worker, which is why nothing here may depend on
 * DJL.
 */
package dev.keel.storage.checkpoint;
