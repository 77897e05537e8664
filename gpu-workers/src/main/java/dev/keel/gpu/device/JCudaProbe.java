package dev.keel.gpu.device;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;

/**
 * The only class that names JCuda: its first call loads JCuda's classes and JNI library (which
 * links {@code libcuda.so.1}), so nothing else may touch it before a discovery is asked for.
 */
final class JCudaProbe {
  /** A driver call that did not return {@code CUDA_SUCCESS}. */
  static final class DriverError extends Exception {
    final int code;

    DriverError(String call, int code) {
      super(call + " returned " + CUresult.stringFor(code));
      this.code = code;
    }

    boolean noDevice() {
      return code == CUresult.CUDA_ERROR_NO_DEVICE;
    }

    String codeName() {
      return CUresult.stringFor(code);
    }
  }

  private JCudaProbe() {}

  /** Every device the driver shows this process, with the driver's API version. */
  static DeviceDiscovery devices() throws DriverError {
    check("cuInit", JCudaDriver.cuInit(0));
    int[] version = new int[1];
    check("cuDriverGetVersion", JCudaDriver.cuDriverGetVersion(version));
    int[] count = new int[1];
    check("cuDeviceGetCount", JCudaDriver.cuDeviceGetCount(count));
    if (count[0] == 0) {
      throw new DriverError("cuDeviceGetCount", CUresult.CUDA_ERROR_NO_DEVICE);
    }
    List<GpuDevice> gpus = new ArrayList<>();
    for (int i = 0; i < count[0]; i++) {
      CUdevice device = new CUdevice();
      check("cuDeviceGet", JCudaDriver.cuDeviceGet(device, i));
      byte[] name = new byte[256];
      check("cuDeviceGetName", JCudaDriver.cuDeviceGetName(name, name.length, device));
      long[] memory = new long[1];
      check("cuDeviceTotalMem", JCudaDriver.cuDeviceTotalMem(memory, device));
      int[] major = new int[1];
      int[] minor = new int[1];
      check(
          "cuDeviceGetAttribute",
          JCudaDriver.cuDeviceGetAttribute(
              major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
      check(
          "cuDeviceGetAttribute",
          JCudaDriver.cuDeviceGetAttribute(
              minor, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
      gpus.add(new GpuDevice(i, cString(name), memory[0], major[0], minor[0]));
    }
    return DeviceDiscovery.gpus(gpus, version[0]);
  }

  private static void check(String call, int result) throws DriverError {
    if (result != CUresult.CUDA_SUCCESS) {
      throw new DriverError(call, result);
    }
  }

  private static String cString(byte[] bytes) {
    int end = 0;
    while (end < bytes.length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, 0, end, StandardCharsets.UTF_8).strip();
  }
}
