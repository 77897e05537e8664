/** Batch inference: score a pinned table split with a checkpoint into a predictions Delta table. */
package dev.keel.inference;
