package dev.keel.gpu.gang;

import java.lang.management.ManagementFactory;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;

/**
 * Who this worker process is to the rest of its gang: its identity and the address its ranks listen
 * on.
 */
public final class RankIdentity {
  /**
   * Overrides the address other ranks connect to (a machine with several networks must choose one).
   */
  public static final String HOST_ENV = "KEEL_RENDEZVOUS_HOST";

  private RankIdentity() {}

  /** {@code pid@hostname}, as Temporal names a worker by default. */
  public static String workerIdentity() {
    return ManagementFactory.getRuntimeMXBean().getName();
  }

  /**
   * {@value #HOST_ENV} if set, else the first IPv4 address of an interface that is up and not a
   * loopback, else 127.0.0.1 (a single machine).
   */
  public static String host() {
    return Host.VALUE;
  }

  /**
   * Resolved once per process: listing network interfaces for every training step would be waste.
   */
  private static final class Host {
    static final String VALUE = resolve();
  }

  private static String resolve() {
    String configured = System.getenv(HOST_ENV);
    if (configured != null && !configured.isBlank()) {
      return configured.trim();
    }
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!nic.isUp() || nic.isLoopback() || nic.isVirtual()) {
          continue;
        }
        for (InetAddress a : Collections.list(nic.getInetAddresses())) {
          if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
            return a.getHostAddress();
          }
        }
      }
    } catch (SocketException e) {
      // no interfaces to list: this machine only
    }
    return "127.0.0.1";
  }
}
