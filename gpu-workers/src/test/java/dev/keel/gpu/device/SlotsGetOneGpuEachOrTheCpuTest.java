package dev.keel.gpu.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Which device each training slot gets and what {@code CUDA_VISIBLE_DEVICES} its process sees: on
 * the CPU path (a {@link CpuDeviceInventory}) and on a GPU host played by {@link
 * StandInForAGpuHostInventory}.
 */
class SlotsGetOneGpuEachOrTheCpuTest {
  private static final DeviceDiscovery CPU =
      new CpuDeviceInventory("no CUDA driver (libcuda.so.1 not found)").discover();

  @Test
  void withoutAGpuEverySlotIsACpuSlotAndTheDefaultIsOne() {
    assertEquals(1, SlotAssignment.defaultSlots(CPU));
    List<SlotDevice> slots = SlotAssignment.assign(CPU, 3, Optional.empty());
    assertEquals(3, slots.size());
    for (int i = 0; i < 3; i++) {
      assertEquals(
          new SlotDevice(i, Optional.empty(), Optional.empty(), Optional.empty()), slots.get(i));
      assertEquals("CPU", slots.get(i).describe(false));
    }
    assertEquals(
        "no CUDA driver (libcuda.so.1 not found): training on CPU, 3 slot(s)",
        SlotAssignment.summary(CPU, 3));
  }

  @Test
  void onAGpuHostEachSlotGetsItsOwnGpuAndTheDefaultIsOneSlotPerGpu() {
    DeviceDiscovery twoGpus = new StandInForAGpuHostInventory(2).discover();
    assertEquals(2, SlotAssignment.defaultSlots(twoGpus));
    List<SlotDevice> slots = SlotAssignment.assign(twoGpus, 2, Optional.empty());
    assertEquals(twoGpus.gpus().get(0), slots.get(0).gpu().orElseThrow());
    assertEquals(twoGpus.gpus().get(1), slots.get(1).gpu().orElseThrow());
    assertEquals(Optional.of("0"), slots.get(0).visibleDevices());
    assertEquals(Optional.of("1"), slots.get(1).visibleDevices());
    assertEquals(
        "GPU 1 Stand-in GPU 1 (16.0 GiB, compute 8.6), CUDA_VISIBLE_DEVICES=1",
        slots.get(1).describe(false));
    assertEquals("GPU 0 Stand-in GPU 0 (16.0 GiB, compute 8.6)", slots.get(0).describe(true));
    assertEquals(
        "2 CUDA device(s), driver API 12.4: training on GPU, 2 slot(s)",
        SlotAssignment.summary(twoGpus, 2));
  }

  @Test
  void fewerSlotsThanGpusTakeTheFirstGpus() {
    List<SlotDevice> slots =
        SlotAssignment.assign(new StandInForAGpuHostInventory(4).discover(), 1, Optional.empty());
    assertEquals(1, slots.size());
    assertEquals(0, slots.get(0).gpu().orElseThrow().ordinal());
  }

  @Test
  void moreSlotsThanGpusShareThemRoundRobin() {
    List<SlotDevice> slots =
        SlotAssignment.assign(new StandInForAGpuHostInventory(2).discover(), 5, Optional.empty());
    assertEquals(
        List.of("0", "1", "0", "1", "0"),
        slots.stream().map(s -> s.visibleDevices().orElseThrow()).toList());
    assertEquals(
        List.of(Optional.empty(), Optional.empty(), Optional.of(0), Optional.of(1), Optional.of(0)),
        slots.stream().map(SlotDevice::sharedWithSlot).toList());
    assertEquals(
        "GPU 0 Stand-in GPU 0 (16.0 GiB, compute 8.6), CUDA_VISIBLE_DEVICES=0, shared with slot 0",
        slots.get(4).describe(false));
  }

  @Test
  void aWorkerThatSeesSomeGpusOnlyHandsItsChildrenThoseGpus() {
    // The worker runs with CUDA_VISIBLE_DEVICES=2,3: the driver numbers those 0 and 1 in it, but a
    // child
    // process given "0" would see the machine's GPU 0.
    DeviceDiscovery two = new StandInForAGpuHostInventory(2).discover();
    assertEquals(
        List.of("2", "3"),
        SlotAssignment.assign(two, 2, Optional.of("2, 3")).stream()
            .map(s -> s.visibleDevices().orElseThrow())
            .toList());
    assertEquals(
        List.of("GPU-aaaa", "GPU-bbbb"),
        SlotAssignment.assign(two, 2, Optional.of("GPU-aaaa,GPU-bbbb,7")).stream()
            .map(s -> s.visibleDevices().orElseThrow())
            .toList());
  }

  @Test
  void zeroSlotsAreRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> SlotAssignment.assign(CPU, 0, Optional.empty()));
    assertEquals("--slots must be at least 1, got 0", e.getMessage());
  }

  @Test
  void aDiscoveryHasGpusOrAReasonAndTheReasonIsOneLine() {
    assertThrows(IllegalArgumentException.class, () -> new DeviceDiscovery(List.of(), 0, ""));
    assertThrows(IllegalArgumentException.class, () -> DeviceDiscovery.cpu("two\nlines"));
    assertEquals("12.4", new StandInForAGpuHostInventory(1).discover().driverVersionText());
  }
}
