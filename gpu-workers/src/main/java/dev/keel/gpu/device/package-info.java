/**
 * Which devices a training worker trains on, and how its slots share them.
 *
 * <p>{@link dev.keel.gpu.device.DeviceInventory} finds the CUDA devices of this machine: {@link
 * dev.keel.gpu.device.CudaDeviceInventory} asks the CUDA driver through JCuda, only when {@code
 * discover()} is called (a worker that does not train never loads JCuda or its JNI library), and
 * falls back to {@link dev.keel.gpu.device.CpuDeviceInventory} with a one-line reason when there is
 * no driver, no JNI library for this platform or no device. {@link
 * dev.keel.gpu.device.SlotAssignment} gives each training slot (one worker process, one rank: DJL
 * allows one active gradient collector per JVM) its device and the {@code CUDA_VISIBLE_DEVICES} its
 * process must see.
 *
 * <p>No DJL here: the control worker's classpath may hold this package without DJL.
 */
package dev.keel.gpu.device;
