/**
 * Trial checkpoints: a directory {@code <root>/<experiment>/<trial>/<uuid>/} holding
 * {@value dev.keel.gpu.checkpoint.CheckpointFiles#PARAMETERS}, {@value
 * dev.keel.gpu.checkpoint.CheckpointFiles#OPTIMIZER}, {@value
 * dev.keel.gpu.checkpoint.CheckpointFiles#METADATA} and, written last, a {@value
 * dev.keel.gpu.checkpoint.CheckpointFiles#MANIFEST} with the size and SHA-256 of every other file.
 * Writes are atomic (locally: staged next to the target, fsynced, renamed; in S3: uploaded with the
 * MANIFEST last and only if absent); reads verify the manifest and refuse partial or corrupt
 * checkpoints. Storage access sits behind {@link dev.keel.gpu.checkpoint.CheckpointStorage}
 * ({@code file://} and {@code s3://}). Trainers take a {@link
 * dev.keel.gpu.checkpoint.CheckpointSnapshot} and let a {@link
 * dev.keel.gpu.checkpoint.BackgroundCheckpointWriter} write it while training goes on.
 */
package dev.keel.gpu.checkpoint;
