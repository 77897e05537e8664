package dev.keel.workflows.pool;

import dev.keel.api.v1.PoolInstance;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Whether a rank runs on an instance. Ranks name where they run by their host (the address other
 * ranks connect to: the instance's private IP on EC2) and their worker's Temporal identity ({@code
 * pid@hostname}, or {@code <host>-slot-<i>} for a slot process); instances by id, private IP and
 * private DNS name ({@code ip-10-0-1-23.ec2.internal}, whose first label is the hostname).
 */
public final class InstanceHosts {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern SLOT = Pattern.compile("-slot-\\d+$");

  private InstanceHosts() {}

  /** Whether the host or worker identity {@code rank} names this instance. */
  public static boolean runsOn(String rank, PoolInstance instance) {
    Set<String> names = names(instance);
    return candidates(rank).stream().anyMatch(names::contains);
  }

  static Set<String> names(PoolInstance instance) {
    Set<String> out = new LinkedHashSet<>();
    add(out, instance.getInstanceId());
    add(out, instance.getPrivateIp());
    add(out, instance.getPrivateDnsName());
    add(out, firstLabel(instance.getPrivateDnsName()));
    return out;
  }

  static Set<String> candidates(String rank) {
    Set<String> out = new LinkedHashSet<>();
    String s = rank == null ? "" : rank.strip();
    add(out, s);
    int at = s.indexOf('@');
    if (at >= 0) {
      s = s.substring(at + 1);
      add(out, s);
    }
    s = SLOT.matcher(s).replaceFirst("");
    add(out, s);
    add(out, firstLabel(s));
    return out;
  }

  private static String firstLabel(String host) {
    if (host.isEmpty() || IPV4.matcher(host).matches()) {
      return "";
    }
    int dot = host.indexOf('.');
    return dot < 0 ? host : host.substring(0, dot);
  }

  private static void add(Set<String> out, String name) {
    if (!name.isBlank()) {
      out.add(name.toLowerCase(Locale.ROOT));
    }
  }
}
