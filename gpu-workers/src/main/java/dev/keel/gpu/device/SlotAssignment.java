package dev.keel.gpu.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Gives each training slot of a worker its device: slot {@code i} trains on GPU {@code i}; with
 * more slots than GPUs, slot {@code i} shares GPU {@code i mod n} with the slots below it; without
 * a GPU every slot trains on the CPU.
 */
public final class SlotAssignment {
  private SlotAssignment() {}

  /** One slot per GPU; one slot on a machine without a GPU. */
  public static int defaultSlots(DeviceDiscovery discovery) {
    return Math.max(1, discovery.gpus().size());
  }

  /**
   * @param inheritedVisibleDevices this process's own {@code CUDA_VISIBLE_DEVICES}, if set: the
   *     discovered ordinals index into it (a worker started with {@code 2,3} gives its slots {@code
   *     2} and {@code 3}, not {@code 0} and {@code 1})
   */
  public static List<SlotDevice> assign(
      DeviceDiscovery discovery, int slots, Optional<String> inheritedVisibleDevices) {
    if (slots < 1) {
      throw new IllegalArgumentException("--slots must be at least 1, got " + slots);
    }
    List<SlotDevice> out = new ArrayList<>();
    List<GpuDevice> gpus = discovery.gpus();
    List<String> inherited =
        inheritedVisibleDevices
            .map(
                v ->
                    Arrays.stream(v.split(","))
                        .map(String::strip)
                        .filter(s -> !s.isEmpty())
                        .toList())
            .orElse(List.of());
    for (int slot = 0; slot < slots; slot++) {
      if (gpus.isEmpty()) {
        out.add(new SlotDevice(slot, Optional.empty(), Optional.empty(), Optional.empty()));
        continue;
      }
      GpuDevice gpu = gpus.get(slot % gpus.size());
      // CUDA keeps the listed devices up to the first one that does not exist, in the listed order
      String visible =
          inherited.size() >= gpus.size()
              ? inherited.get(gpu.ordinal())
              : Integer.toString(gpu.ordinal());
      Optional<Integer> shared =
          slot >= gpus.size() ? Optional.of(slot % gpus.size()) : Optional.empty();
      out.add(new SlotDevice(slot, Optional.of(gpu), Optional.of(visible), shared));
    }
    return List.copyOf(out);
  }

  /**
   * The environments of {@code ranks} processes that one host starts for the ranks of a gang: rank
   * {@code i} gets slot {@code i}'s device ({@link SlotDevice#environment}).
   */
  public static List<Map<String, String>> rankEnvironments(
      DeviceDiscovery discovery, int ranks, Optional<String> inheritedVisibleDevices) {
    return assign(discovery, ranks, inheritedVisibleDevices).stream()
        .map(SlotDevice::environment)
        .toList();
  }

  /**
   * The one line a training worker prints about its devices: {@code no CUDA driver (libcuda.so.1
   * not found): training on CPU, 2 slot(s)} or {@code 2 CUDA device(s), driver API 12.4: training
   * on GPU, 2 slot(s)}.
   */
  public static String summary(DeviceDiscovery discovery, int slots) {
    if (!discovery.onGpu()) {
      return discovery.cpuReason() + ": training on CPU, " + slots + " slot(s)";
    }
    String driver = discovery.driverVersionText();
    return discovery.gpus().size()
        + " CUDA device(s)"
        + (driver.isEmpty() ? "" : ", driver API " + driver)
        + ": training on GPU, "
        + slots
        + " slot(s)";
  }
}
