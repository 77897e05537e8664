/**
 * Collectives for data-parallel training on PyTorch's own c10d engine, next to DJL: a {@link
 * dev.keel.gpu.collective.Store} (c10d's {@code TCPStore}) where ranks meet, and a {@link
 * dev.keel.gpu.collective.ProcessGroup} over it ({@link dev.keel.gpu.collective.GlooProcessGroup}
 * on CPU, {@link dev.keel.gpu.collective.NcclProcessGroup} on CUDA) that allreduces and broadcasts
 * DJL arrays in place, on the arrays' own native memory.
 *
 * <p>The engine is a small JNI library built from {@code gpu-workers/native} and shipped inside
 * this module's jar ({@code native/linux-x86_64/}); {@link
 * dev.keel.gpu.collective.NativeCollectives} loads it after DJL's PyTorch engine, whose libtorch it
 * links to. One rank per process: DJL allows one active gradient collector per JVM. Every native
 * failure (timeout, dead peer, port in use) arrives as a {@link
 * dev.keel.gpu.collective.CollectiveException}.
 */
package dev.keel.gpu.collective;
