package dev.keel.service.cli;

import dev.keel.service.api.ApiServer;
import dev.keel.service.api.TlsOptions;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * How {@code keel serve} keeps its bearer token off the wire in clear: HTTPS from PEM files, plain
 * HTTP on loopback, or plain HTTP elsewhere only when the operator says TLS ends in front of it.
 */
final class ServeTlsOptions {
  @Option(
      names = "--tls-cert",
      paramLabel = "FILE",
      description =
          "Serve HTTPS with this PEM certificate chain, leaf first (e.g. certbot's fullchain.pem); needs --tls-key.")
  Path certificate;

  @Option(
      names = "--tls-key",
      paramLabel = "FILE",
      description =
          "The certificate's private key, PEM, unencrypted (PKCS#8, or PKCS#1 RSA / SEC1 EC).")
  Path key;

  @Option(
      names = "--insecure-http",
      description =
          "Serve plain HTTP on an address other than loopback, where tokens cross the network in clear:"
              + " only behind a proxy or load balancer that ends TLS.")
  boolean insecureHttp;

  /**
   * The TLS settings of a server listening on {@code host}.
   *
   * @throws IllegalArgumentException one line: half a key pair, unusable files, or plain HTTP off
   *     loopback without {@code --insecure-http}
   */
  TlsOptions forHost(String host) {
    if ((certificate == null) != (key == null)) {
      throw new IllegalArgumentException(
          certificate == null
              ? "--tls-key needs --tls-cert (the certificate of the key)"
              : "--tls-cert needs --tls-key (the certificate's private key)");
    }
    if (certificate != null) {
      if (insecureHttp) {
        throw new IllegalArgumentException(
            "--insecure-http and --tls-cert contradict each other: give one");
      }
      return TlsOptions.pem(certificate, key);
    }
    if (!insecureHttp && !ApiServer.isLoopback(host)) {
      throw new IllegalArgumentException(
          "refusing to serve on "
              + host
              + " over plain HTTP, which would carry the"
              + " bearer token in clear: give --tls-cert FILE --tls-key FILE, or --insecure-http when a proxy or load"
              + " balancer in front ends TLS");
    }
    return TlsOptions.none();
  }
}
