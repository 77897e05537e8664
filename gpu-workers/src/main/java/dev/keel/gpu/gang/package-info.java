/**
 * One trial trained by a gang of ranks, one per worker process: how a rank finds the others through
 * its workflow ({@link dev.keel.activities.train.GangRendezvous}), checks that they agree on what
 * they train, and averages gradients with them over PyTorch's c10d process groups ({@link
 * dev.keel.gpu.collective}).
 */
package dev.keel.gpu.gang;
