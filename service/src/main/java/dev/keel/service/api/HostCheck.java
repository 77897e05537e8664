package dev.keel.service.api;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What an API without a token accepts, against DNS rebinding: a web page on {@code evil.example}
 * whose name its owner re-points at 127.0.0.1 reaches a loopback server with the browser's blessing
 * (same origin as far as the browser knows), but its requests still say {@code Host: evil.example}.
 * So without a token only requests addressed to this machine's loopback names (127.0.0.1,
 * localhost, [::1], and the name the server was told to listen on) on the server's own port are
 * served, and a request that names a web origin (every cross-origin write a browser sends does)
 * must come from one of those. With a token the check is off: the token is the protection, and a
 * deployment is reached by names this class cannot know.
 */
public final class HostCheck {
  /** The longest header value an answer quotes back. */
  private static final int QUOTED = 100;

  private final boolean enabled;
  private final Set<String> names;

  private HostCheck(boolean enabled, Set<String> names) {
    this.enabled = enabled;
    this.names = names;
  }

  /** No check: the API has a token. */
  public static HostCheck off() {
    return new HostCheck(false, Set.of());
  }

  /** Only loopback names, and {@code listenHost} (the address or name the server listens on). */
  public static HostCheck loopbackNames(String listenHost) {
    Set<String> names = new LinkedHashSet<>(Set.of("127.0.0.1", "localhost", "[::1]"));
    String own = listenHost.toLowerCase(Locale.ROOT);
    names.add(own.contains(":") && !own.startsWith("[") ? "[" + own + "]" : own);
    return new HostCheck(true, Set.copyOf(names));
  }

  public boolean enabled() {
    return enabled;
  }

  /**
   * Why a request with these headers is refused, or empty when it is served.
   *
   * @param host the {@code Host} header (null when absent)
   * @param origin the {@code Origin} header (null when absent: not sent by a browser for its own
   *     page, nor by curl or the CLI)
   * @param port the port the request arrived on
   * @param secure whether it arrived over TLS
   */
  public Optional<String> refusal(String host, String origin, int port, boolean secure) {
    if (!enabled) {
      return Optional.empty();
    }
    if (host == null || !acceptsHost(host.strip().toLowerCase(Locale.ROOT), port, secure)) {
      return Optional.of(
          "this API has no token, so it answers only requests addressed to "
              + addresses(port)
              + ", not "
              + (host == null ? "one without a Host header" : "to Host " + quote(host))
              + " (a guard against DNS rebinding); to serve other names, give it a token ("
              + ApiToken.ENV
              + ")");
    }
    // Micronaut's CORS filter refuses a foreign Origin's reads to a loopback server too, without
    // saying
    // why; writes are what matters (a browser sends a cross-site form POST without asking first)
    if (origin != null && !acceptsOrigin(origin.strip().toLowerCase(Locale.ROOT), port)) {
      return Optional.of(
          "this API has no token, so web pages may call it only from its own origin ("
              + origins(port)
              + "), not from Origin "
              + quote(origin));
    }
    return Optional.empty();
  }

  private boolean acceptsHost(String host, int port, boolean secure) {
    int colon = host.lastIndexOf(':');
    if (colon < 0 || host.endsWith("]")) { // no port: the scheme's default
      return names.contains(host) && port == (secure ? 443 : 80);
    }
    return names.contains(host.substring(0, colon))
        && host.substring(colon + 1).equals(Integer.toString(port));
  }

  private boolean acceptsOrigin(String origin, int port) {
    for (String scheme : new String[] {"http", "https"}) {
      if (origin.startsWith(scheme + "://")) {
        String authority = origin.substring(scheme.length() + 3);
        // a browser leaves out the scheme's default port
        return acceptsHost(authority, port, scheme.equals("https"));
      }
    }
    return false; // "null" (a sandboxed frame, a file: page) or another scheme
  }

  private String addresses(int port) {
    return String.join(", ", names.stream().sorted().map(n -> n + ":" + port).toList());
  }

  private String origins(int port) {
    return String.join(
        ", ", names.stream().sorted().map(n -> "http(s)://" + n + ":" + port).toList());
  }

  /**
   * The header as sent, quoted, cut short and without control characters: it is the caller's text.
   */
  private static String quote(String value) {
    String clean = value.replaceAll("\\p{Cntrl}", "?");
    return "'" + (clean.length() > QUOTED ? clean.substring(0, QUOTED) + "..." : clean) + "'";
  }
}
