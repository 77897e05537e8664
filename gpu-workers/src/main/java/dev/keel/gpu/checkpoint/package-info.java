/**
 * The DJL side of checkpoints: taking a snapshot of a model's parameters and optimizer state, and
 * loading them back into a model from a verified checkpoint. Files, MANIFESTs, atomic commits and
 * S3 live in {@code dev.keel.storage.checkpoint}, which knows no DJL.
 */
package dev.keel.gpu.checkpoint;
