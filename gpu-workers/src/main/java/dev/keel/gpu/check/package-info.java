/**
 * The GPU host check ({@code gpu-workers/gpu-check/}): what a CUDA host can do with Keel, one line
 * per check, runnable from a slim class path without the service.
 */
package dev.keel.gpu.check;
