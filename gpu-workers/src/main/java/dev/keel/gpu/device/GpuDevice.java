package dev.keel.gpu.device;

import java.util.Locale;
import java.util.Objects;

/**
 * One CUDA device as the driver numbers it in this process: {@code ordinal} counts the devices this
 * process sees, after {@code CUDA_VISIBLE_DEVICES} and in {@code CUDA_DEVICE_ORDER}.
 */
public record GpuDevice(
    int ordinal, String name, long totalMemoryBytes, int computeMajor, int computeMinor) {
  public GpuDevice {
    Objects.requireNonNull(name, "name");
    if (ordinal < 0) {
      throw new IllegalArgumentException("ordinal must be >= 0, got " + ordinal);
    }
  }

  /** {@code 8.6} for an sm_86 device. */
  public String computeCapability() {
    return computeMajor + "." + computeMinor;
  }

  /** {@code GPU 0 NVIDIA A100-SXM4-80GB (79.3 GiB, compute 8.0)}. */
  public String describe() {
    return String.format(
        Locale.ROOT,
        "GPU %d %s (%.1f GiB, compute %s)",
        ordinal,
        name,
        totalMemoryBytes / (double) (1L << 30),
        computeCapability());
  }
}
