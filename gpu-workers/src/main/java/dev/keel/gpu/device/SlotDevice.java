package dev.keel.gpu.device;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The device of one training slot.
 *
 * @param gpu the device as this process (the one that discovered it) numbers it; empty: the CPU
 * @param visibleDevices what the slot's own process must get as {@code CUDA_VISIBLE_DEVICES}, so
 *     that its one visible device (libtorch's {@code gpu(0)}) is {@code gpu}; empty on the CPU
 * @param sharedWithSlot the lower slot that trains on the same GPU (more slots than GPUs), or empty
 */
public record SlotDevice(
    int slot,
    Optional<GpuDevice> gpu,
    Optional<String> visibleDevices,
    Optional<Integer> sharedWithSlot) {
  public SlotDevice {
    Objects.requireNonNull(gpu, "gpu");
    Objects.requireNonNull(visibleDevices, "visibleDevices");
    Objects.requireNonNull(sharedWithSlot, "sharedWithSlot");
    if (gpu.isPresent() != visibleDevices.isPresent()) {
      throw new IllegalArgumentException("a GPU slot names its visible device, a CPU slot none");
    }
  }

  public boolean onGpu() {
    return gpu.isPresent();
  }

  /**
   * What the slot's own process adds to its environment: {@code CUDA_VISIBLE_DEVICES=<its GPU>} on
   * a GPU, so that libtorch's {@code gpu(0)} is that GPU (without it, every process of a host takes
   * the first GPU, and NCCL refuses two ranks of a gang on one device); nothing on the CPU.
   */
  public Map<String, String> environment() {
    return visibleDevices.map(v -> Map.of(CudaDeviceInventory.VISIBLE_DEVICES, v)).orElse(Map.of());
  }

  /**
   * {@code GPU 1 NVIDIA L4 (22.0 GiB, compute 8.9), CUDA_VISIBLE_DEVICES=1} or {@code CPU}; for the
   * slot of the process that discovered the devices (which cannot narrow what it sees) without the
   * variable.
   */
  public String describe(boolean ownProcess) {
    if (gpu.isEmpty()) {
      return "CPU";
    }
    StringBuilder s = new StringBuilder(gpu.get().describe());
    if (!ownProcess) {
      s.append(", ")
          .append(CudaDeviceInventory.VISIBLE_DEVICES)
          .append('=')
          .append(visibleDevices.get());
    }
    sharedWithSlot.ifPresent(other -> s.append(", shared with slot ").append(other));
    return s.toString();
  }
}
