package dev.keel.gpu.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The environment each process of a gang started on one host gets: on two GPUs, rank 0 sees only
 * GPU 0 and rank 1 only GPU 1 (each as its own {@code gpu(0)}); on the CPU the variable stays
 * unset, since an empty one would also hide the GPUs from a process that could use them.
 */
class EachRankOfAGangOnOneHostSeesItsOwnGpuTest {
  @Test
  void twoRanksOnTwoGpusEachGetTheirOwnVisibleDevice() {
    List<Map<String, String>> envs =
        SlotAssignment.rankEnvironments(
            new StandInForAGpuHostInventory(2).discover(), 2, Optional.empty());
    assertEquals(
        List.of(
            Map.of(CudaDeviceInventory.VISIBLE_DEVICES, "0"),
            Map.of(CudaDeviceInventory.VISIBLE_DEVICES, "1")),
        envs);
  }

  @Test
  void aWorkerStartedOnSomeGpusHandsItsRanksThoseGpus() {
    assertEquals(
        List.of(
            Map.of(CudaDeviceInventory.VISIBLE_DEVICES, "2"),
            Map.of(CudaDeviceInventory.VISIBLE_DEVICES, "3")),
        SlotAssignment.rankEnvironments(
            new StandInForAGpuHostInventory(2).discover(), 2, Optional.of("2,3")));
  }

  @Test
  void onTheCpuNoRankGetsTheVariable() {
    assertEquals(
        List.of(Map.of(), Map.of()),
        SlotAssignment.rankEnvironments(
            DeviceDiscovery.cpu("no CUDA driver (libcuda.so.1 not found)"), 2, Optional.empty()));
  }
}
