package dev.keel.gpu.device;

import java.util.ArrayList;
import java.util.List;

/**
 * Stands in for a GPU host, which no build machine of this project is: an inventory that answers
 * with made-up devices, so the slot logic can be tested where no GPU can exist. A real GPU is only
 * seen by {@link CudaDeviceInventory} on a GPU host.
 */
final class StandInForAGpuHostInventory implements DeviceInventory {
  private final DeviceDiscovery discovery;

  /**
   * {@code count} made-up devices named {@code Stand-in GPU <i>}, 16 GiB, compute 8.6, driver API
   * 12.4.
   */
  StandInForAGpuHostInventory(int count) {
    List<GpuDevice> gpus = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      gpus.add(new GpuDevice(i, "Stand-in GPU " + i, 16L << 30, 8, 6));
    }
    this.discovery = DeviceDiscovery.gpus(gpus, 12040);
  }

  @Override
  public DeviceDiscovery discover() {
    return discovery;
  }
}
