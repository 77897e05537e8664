package dev.keel.gpu.device;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link DeviceInventory} found: the CUDA devices, or none and why (a short phrase without a
 * line break, such as {@code no CUDA driver (libcuda.so.1 not found)}), so a worker can say in one
 * line why it trains on the CPU.
 *
 * @param driverVersion the CUDA driver API version as the driver reports it ({@code 12040} for
 *     12.4), 0 when unknown
 */
public record DeviceDiscovery(List<GpuDevice> gpus, int driverVersion, String cpuReason) {
  public DeviceDiscovery {
    gpus = List.copyOf(gpus);
    Objects.requireNonNull(cpuReason, "cpuReason");
    if (gpus.isEmpty() == cpuReason.isBlank()) {
      throw new IllegalArgumentException(
          "a discovery has either GPUs or a reason for the CPU, not both or neither: "
              + gpus
              + ", '"
              + cpuReason
              + "'");
    }
    if (cpuReason.contains("\n") || cpuReason.contains("\r")) {
      throw new IllegalArgumentException("the reason is printed as part of one line: " + cpuReason);
    }
  }

  public static DeviceDiscovery gpus(List<GpuDevice> gpus, int driverVersion) {
    return new DeviceDiscovery(gpus, driverVersion, "");
  }

  public static DeviceDiscovery cpu(String reason) {
    return new DeviceDiscovery(List.of(), 0, reason);
  }

  public boolean onGpu() {
    return !gpus.isEmpty();
  }

  /** {@code 12.4} for 12040; empty when unknown. */
  public String driverVersionText() {
    return driverVersion <= 0 ? "" : (driverVersion / 1000) + "." + (driverVersion % 1000) / 10;
  }
}
