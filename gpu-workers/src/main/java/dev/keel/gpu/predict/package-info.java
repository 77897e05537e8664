/** Batch prediction from a verified checkpoint, for the inference module. */
package dev.keel.gpu.predict;
