package dev.keel.gpu.device;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Asks the CUDA driver, through JCuda, for this process's devices. Nothing of JCuda is loaded until
 * the first {@link #discover()}; the answer is kept for the life of the JVM, because the driver's
 * device list does not change under a running process and a JNI library that failed to load cannot
 * be loaded again.
 *
 * <p>Every way this can fail on a machine without a usable GPU (JCuda missing, no JNI library for
 * this platform, no {@code libcuda.so.1}, a driver older than JCuda needs, no device) becomes a CPU
 * discovery whose reason fits in one line.
 */
public final class CudaDeviceInventory implements DeviceInventory {
  /**
   * The variable through which CUDA (the driver and libtorch alike) hides devices from a process.
   */
  public static final String VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";

  /** The JCuda release on the classpath, named in reasons. */
  static final String JCUDA_VERSION = "12.6.0";

  private static final Pattern MISSING_SHARED_LIBRARY =
      Pattern.compile("([\\w.+-]+\\.so[.\\d]*): cannot open shared object file");
  private static final Pattern MISSING_RESOURCE =
      Pattern.compile("No resource found with name '([^']+)'");
  private static final Pattern UNDEFINED_SYMBOL = Pattern.compile("undefined symbol: (\\S+)");

  private static DeviceDiscovery cached;

  private final String visibleDevices;

  /**
   * @param visibleDevices this process's {@code CUDA_VISIBLE_DEVICES}, or null; only named in
   *     reasons
   */
  public CudaDeviceInventory(String visibleDevices) {
    this.visibleDevices = visibleDevices;
  }

  @Override
  public DeviceDiscovery discover() {
    synchronized (CudaDeviceInventory.class) {
      if (cached == null) {
        cached = probe();
      }
      return cached;
    }
  }

  private DeviceDiscovery probe() {
    try {
      return JCudaProbe.devices();
    } catch (JCudaProbe.DriverError e) {
      if (e.noDevice()) {
        return DeviceDiscovery.cpu(
            "no CUDA device"
                + (visibleDevices == null
                    ? ""
                    : " (" + VISIBLE_DEVICES + "=" + visibleDevices + ")"));
      }
      return DeviceDiscovery.cpu("the CUDA driver is unusable (" + e.getMessage() + ")");
    } catch (NoClassDefFoundError e) {
      return DeviceDiscovery.cpu("JCuda is not on the classpath (" + oneLine(e.getMessage()) + ")");
    } catch (LinkageError e) {
      return DeviceDiscovery.cpu(reasonForLinkError(e));
    } catch (RuntimeException e) {
      return DeviceDiscovery.cpu(
          "the CUDA device query failed ("
              + e.getClass().getSimpleName()
              + ": "
              + oneLine(e.getMessage())
              + ")");
    }
  }

  /**
   * JCuda reports a JNI library that did not load as one message with both attempts' stack traces
   * inside it; the reason is in there: a missing {@code libcuda.so.1} (no driver), a missing
   * library resource (no natives for this platform), or an undefined symbol (a driver older than
   * JCuda needs).
   */
  static String reasonForLinkError(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      text.append(t.getMessage()).append('\n');
    }
    Matcher lib = MISSING_SHARED_LIBRARY.matcher(text);
    if (lib.find()) {
      String name = lib.group(1);
      return name.startsWith("libcuda.so")
          ? "no CUDA driver (" + name + " not found)"
          : "JCuda's JNI library needs " + name + ", which was not found";
    }
    Matcher symbol = UNDEFINED_SYMBOL.matcher(text);
    if (symbol.find()) {
      return "the CUDA driver is older than JCuda "
          + JCUDA_VERSION
          + " needs (undefined symbol "
          + symbol.group(1)
          + ")";
    }
    Matcher resource = MISSING_RESOURCE.matcher(text);
    if (resource.find()) {
      return "no JCuda JNI library for "
          + platform()
          + " ("
          + resource.group(1)
          + " is not on the classpath; JCuda "
          + JCUDA_VERSION
          + " ships linux-x86_64 and windows-x86_64)";
    }
    return "JCuda's JNI library did not load on "
        + platform()
        + " ("
        + oneLine(e.getMessage())
        + ")";
  }

  private static String platform() {
    return System.getProperty("os.name", "?").toLowerCase(Locale.ROOT)
        + "-"
        + System.getProperty("os.arch", "?");
  }

  private static String oneLine(String message) {
    if (message == null) {
      return "no message";
    }
    String first = message.lines().findFirst().orElse("").strip();
    return first.length() > 200 ? first.substring(0, 200) + "…" : first;
  }
}
