package dev.keel.gpu.device;

/** No GPU, for a stated reason: what a worker trains on when CUDA is absent or hidden. */
public final class CpuDeviceInventory implements DeviceInventory {
  private final DeviceDiscovery discovery;

  /**
   * @param reason why there is no GPU, one line ({@code no CUDA driver (libcuda.so.1 not found)})
   */
  public CpuDeviceInventory(String reason) {
    this.discovery = DeviceDiscovery.cpu(reason);
  }

  @Override
  public DeviceDiscovery discover() {
    return discovery;
  }
}
