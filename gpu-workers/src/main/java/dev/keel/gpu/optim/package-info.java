/**
 * Optimizers whose state (moments, momentum, step counts) can be saved and restored, so a trial
 * resumed from a checkpoint continues bit-identically. DJL's built-in optimizers keep that state
 * private; these use the same fused native update kernels.
 */
package dev.keel.gpu.optim;
