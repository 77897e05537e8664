package dev.keel.service.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.api.ApiServer;
import dev.keel.service.api.ApiToken;
import dev.keel.service.api.LoopbackStack;
import dev.keel.service.api.TestCertificate;
import dev.keel.service.api.TlsOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API serves HTTPS from PEM files made here with keytool: a client that trusts the certificate
 * gets its answers, one that does not is stopped by the handshake, and plain HTTP to the port gets
 * nothing. Unusable PEM files stop the start with one line naming the file.
 */
class ApiOverTlsAnswersOnlyClientsThatTrustItsCertificateTest {
  private static final String TOKEN = "0123456789abcdef0123456789abcdef";
  @TempDir static Path dir;
  private static LoopbackStack stack;
  private static TestCertificate ec;

  @BeforeAll
  static void start() throws Exception {
    stack = LoopbackStack.start("tls");
    ec = TestCertificate.create(dir, "ec", "EC");
  }

  @AfterAll
  static void stop() {
    stack.close();
  }

  @Test
  void aClientTrustingTheCertificateIsServedAndOthersAreRefusedByTheHandshake() throws Exception {
    try (ApiServer api =
        ApiServer.start(
            "127.0.0.1",
            0,
            stack.client(),
            stack.root(),
            ApiToken.of(TOKEN),
            TlsOptions.pem(ec.certificate(), ec.key()))) {
      assertEquals("https://127.0.0.1:" + api.port(), api.url());
      URI models = URI.create(api.url() + "/api/v1/models");

      HttpClient trusting = HttpClient.newBuilder().sslContext(ec.trustingIt()).build();
      HttpResponse<String> ok =
          trusting.send(
              HttpRequest.newBuilder(models).header("Authorization", "Bearer " + TOKEN).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, ok.statusCode(), ok.body());
      assertEquals(
          401,
          trusting
              .send(HttpRequest.newBuilder(models).build(), HttpResponse.BodyHandlers.ofString())
              .statusCode(),
          "TLS does not replace the token");

      HttpClient usual =
          HttpClient.newHttpClient(); // the JDK's CAs, which never signed this certificate
      IOException refused =
          assertThrows(
              IOException.class,
              () ->
                  usual.send(
                      HttpRequest.newBuilder(models)
                          .header("Authorization", "Bearer " + TOKEN)
                          .build(),
                      HttpResponse.BodyHandlers.ofString()));
      assertTrue(causedBy(refused, SSLHandshakeException.class), refused.toString());

      String reply =
          plainHttp(
              api.port(),
              "GET /api/v1/models HTTP/1.1\r\nHost: 127.0.0.1:"
                  + api.port()
                  + "\r\nAuthorization: Bearer "
                  + TOKEN
                  + "\r\nConnection: close\r\n\r\n");
      assertFalse(
          reply.startsWith("HTTP/"), "plain HTTP gets no HTTP answer, let alone data: " + reply);
    }
  }

  @Test
  void aPkcs1RsaKeyAsOlderOpensslWritesIsServedToo() throws Exception {
    TestCertificate rsa = TestCertificate.create(dir, "rsa", "RSA");
    Path pkcs1 = rsa.writePkcs1Key(dir.resolve("rsa-pkcs1-key.pem"));
    assertTrue(Files.readString(pkcs1).startsWith("-----BEGIN RSA PRIVATE KEY-----"));
    try (ApiServer api =
        ApiServer.start(
            "127.0.0.1",
            0,
            stack.client(),
            stack.root(),
            ApiToken.of(TOKEN),
            TlsOptions.pem(rsa.certificate(), pkcs1))) {
      HttpResponse<String> health =
          HttpClient.newBuilder()
              .sslContext(rsa.trustingIt())
              .build()
              .send(
                  HttpRequest.newBuilder(URI.create(api.url() + "/health")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, health.statusCode(), health.body());
    }
  }

  @Test
  void unusablePemFilesAreRefusedInOneLineNamingTheFile() throws Exception {
    TestCertificate other = TestCertificate.create(dir, "other", "EC");
    String mismatch = refusal(ec.certificate(), other.key());
    assertTrue(
        mismatch.contains("--tls-key " + other.key()) && mismatch.contains("not the private key"),
        mismatch);

    String keyAsCertificate = refusal(ec.key(), ec.key());
    assertTrue(
        keyAsCertificate.contains("--tls-cert " + ec.key())
            && keyAsCertificate.contains("BEGIN CERTIFICATE"),
        keyAsCertificate);

    String missing = refusal(dir.resolve("nowhere.pem"), ec.key());
    assertTrue(missing.contains("nowhere.pem: no such file"), missing);

    Path encrypted =
        Files.writeString(
            dir.resolve("encrypted-key.pem"),
            Files.readString(ec.key()).replace("PRIVATE KEY", "ENCRYPTED PRIVATE KEY"));
    String isEncrypted = refusal(ec.certificate(), encrypted);
    assertTrue(isEncrypted.contains("encrypted"), isEncrypted);

    TestCertificate expired = TestCertificate.expired(dir, "expired");
    String isExpired = refusal(expired.certificate(), expired.key());
    assertTrue(
        isExpired.contains("--tls-cert " + expired.certificate())
            && isExpired.contains("expired on"),
        isExpired);

    Path notAKey =
        Files.writeString(
            dir.resolve("garbage-key.pem"),
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
    String garbage = refusal(ec.certificate(), notAKey);
    assertTrue(garbage.contains("--tls-key " + notAKey) && garbage.contains("EC"), garbage);
  }

  private static String refusal(Path certificate, Path key) {
    String message =
        assertThrows(IllegalArgumentException.class, () -> TlsOptions.pem(certificate, key))
            .getMessage();
    assertFalse(message.contains("\n"), message);
    return message;
  }

  private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
    }
    return false;
  }

  /** What the server sends back to plain HTTP, until it closes the connection. */
  private static String plainHttp(int port, String request) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(60_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      try {
        return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      } catch (SocketException reset) {
        return ""; // the server dropped the connection
      }
    }
  }
}
