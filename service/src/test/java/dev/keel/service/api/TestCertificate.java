package dev.keel.service.api;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed certificate for localhost, 127.0.0.1 and ::1 made by the JDK's keytool, written as
 * the PEM files an operator has ({@code cert.pem}, {@code key.pem} in PKCS#8), and a client context
 * that trusts it and nothing else.
 */
public record TestCertificate(Path certificate, Path key, Certificate cert, PrivateKey privateKey) {
  private static final char[] PASSWORD = "changeit".toCharArray();

  /**
   * A new key pair ({@code EC} or {@code RSA}) and its certificate, valid for two days from now,
   * under {@code dir/name-*.pem}.
   */
  public static TestCertificate create(Path dir, String name, String keyAlgorithm)
      throws Exception {
    return create(dir, name, keyAlgorithm, null);
  }

  /** An EC certificate whose two days of validity ended a week ago. */
  public static TestCertificate expired(Path dir, String name) throws Exception {
    return create(dir, name, "EC", "-9d");
  }

  private static TestCertificate create(Path dir, String name, String keyAlgorithm, String start)
      throws Exception {
    Path store = dir.resolve(name + ".p12");
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "keel",
                "-keyalg",
                keyAlgorithm,
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=dns:localhost,ip:127.0.0.1,ip:::1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                new String(PASSWORD),
                "-keypass",
                new String(PASSWORD)));
    if (start != null) {
      command.addAll(List.of("-startdate", start));
    }
    command.addAll(
        keyAlgorithm.equals("EC")
            ? List.of("-groupname", "secp256r1")
            : List.of("-keysize", "2048"));
    Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!keytool.waitFor(2, TimeUnit.MINUTES) || keytool.exitValue() != 0) {
      throw new IOException("keytool failed: " + output);
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, PASSWORD);
    }
    Certificate cert = ks.getCertificate("keel");
    PrivateKey key = (PrivateKey) ks.getKey("keel", PASSWORD);
    Path certPem =
        Files.writeString(dir.resolve(name + "-cert.pem"), pem("CERTIFICATE", cert.getEncoded()));
    Path keyPem =
        Files.writeString(dir.resolve(name + "-key.pem"), pem("PRIVATE KEY", key.getEncoded()));
    return new TestCertificate(certPem, keyPem, cert, key);
  }

  /** A client TLS context that trusts this certificate only. */
  public SSLContext trustingIt() throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("keel", cert);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, tmf.getTrustManagers(), null);
    return context;
  }

  /**
   * The key as OpenSSL 1.1's {@code genrsa} wrote it: {@code RSA PRIVATE KEY} (PKCS#1), i.e. the
   * private-key OCTET STRING of the PKCS#8 encoding.
   */
  public Path writePkcs1Key(Path file) throws IOException {
    byte[] pkcs8 = privateKey.getEncoded();
    int at = header(pkcs8, 0); // inside PrivateKeyInfo
    at += header(pkcs8, at) + length(pkcs8, at); // version
    at += header(pkcs8, at) + length(pkcs8, at); // algorithm
    byte[] pkcs1 =
        Arrays.copyOfRange(
            pkcs8, at + header(pkcs8, at), at + header(pkcs8, at) + length(pkcs8, at));
    return Files.writeString(file, pem("RSA PRIVATE KEY", pkcs1));
  }

  static String pem(String label, byte[] der) {
    return "-----BEGIN "
        + label
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + label
        + "-----\n";
  }

  private static int header(byte[] der, int at) {
    int first = der[at + 1] & 0xff;
    return first < 0x80 ? 2 : 2 + (first & 0x7f);
  }

  private static int length(byte[] der, int at) {
    int first = der[at + 1] & 0xff;
    if (first < 0x80) {
      return first;
    }
    int n = 0;
    for (int i = 0; i < (first & 0x7f); i++) {
      n = (n << 8) | (der[at + 2 + i] & 0xff);
    }
    return n;
  }
}
