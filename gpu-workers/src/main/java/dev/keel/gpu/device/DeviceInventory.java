package dev.keel.gpu.device;

import java.util.Map;

/** Finds the devices this process can train on. */
public interface DeviceInventory {
  /**
   * Never throws and never prints: a machine without a GPU gets a CPU discovery with its reason.
   */
  DeviceDiscovery discover();

  /**
   * The inventory for a process with this environment: an empty {@code CUDA_VISIBLE_DEVICES} hides
   * every device (from the driver and from libtorch alike), so the driver is not asked at all;
   * otherwise the CUDA driver is, through JCuda.
   */
  static DeviceInventory forEnvironment(Map<String, String> env) {
    String visible = env.get(CudaDeviceInventory.VISIBLE_DEVICES);
    if (visible != null && visible.isBlank()) {
      return new CpuDeviceInventory(CudaDeviceInventory.VISIBLE_DEVICES + " is empty");
    }
    return new CudaDeviceInventory(visible);
  }
}
