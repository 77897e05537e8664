package dev.keel.service.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.api.TestCertificate;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.testing.Poll;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code keel serve} with {@code KEEL_API_TOKEN} set, as its own process (the token comes from the
 * environment): off loopback without TLS or {@code --insecure-http} it exits 2 with one line; with
 * {@code --tls-cert} and {@code --tls-key} it serves HTTPS. Bad TLS options exit 2 in one line too.
 */
class KeelServeKeepsBearerTokensOffPlainHttpTest {
  private static final String TOKEN = "0123456789abcdef0123456789abcdef";

  @Test
  void offLoopbackWithATokenButWithoutTlsItExitsTwoSayingSoInOneLine(@TempDir Path dir)
      throws Exception {
    Process serve =
        keel(
            dir,
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--storage",
            dir.resolve("store").toString(),
            "--temporal",
            "127.0.0.1:1");
    try {
      assertTrue(serve.waitFor(3, TimeUnit.MINUTES), "keel serve should refuse at once, not serve");
      String err = Files.readString(dir.resolve("err.txt"));
      assertEquals(2, serve.exitValue(), err);
      List<String> lines = err.lines().filter(l -> l.startsWith("keel: ")).toList();
      assertEquals(1, lines.size(), err);
      String line = lines.get(0);
      assertTrue(
          line.contains("0.0.0.0")
              && line.contains("plain HTTP")
              && line.contains("--tls-cert FILE --tls-key FILE")
              && line.contains("--insecure-http"),
          line);
      assertFalse(err.contains("\tat "), err);
    } finally {
      stop(serve);
    }
  }

  @Test
  void withItsCertificateAndKeyItServesHttps(@TempDir Path dir) throws Exception {
    TestCertificate cert = TestCertificate.create(dir, "serve", "EC");
    try (LoopbackTemporalServer temporal = LoopbackTemporalServer.start(0)) {
      Process serve =
          keel(
              dir,
              "serve",
              "--port",
              "0",
              "--tls-cert",
              cert.certificate().toString(),
              "--tls-key",
              cert.key().toString(),
              "--storage",
              Files.createDirectories(dir.resolve("store")).toString(),
              "--temporal",
              temporal.address());
      try {
        Pattern started = Pattern.compile("Keel API on (https://127\\.0\\.0\\.1:\\d+) ");
        Poll.until(
            "keel serve to print its URL or end",
            Duration.ofMinutes(3),
            () -> !serve.isAlive() || started.matcher(read(dir.resolve("out.txt"))).find());
        Matcher m = started.matcher(read(dir.resolve("out.txt")));
        assertTrue(
            m.find(),
            "keel serve ended: " + read(dir.resolve("out.txt")) + read(dir.resolve("err.txt")));
        HttpResponse<String> models =
            HttpClient.newBuilder()
                .sslContext(cert.trustingIt())
                .build()
                .send(
                    HttpRequest.newBuilder(URI.create(m.group(1) + "/api/v1/models"))
                        .header("Authorization", "Bearer " + TOKEN)
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertEquals(200, models.statusCode(), models.body());
      } finally {
        stop(serve);
      }
    }
  }

  @Test
  void halfAKeyPairOrAContradictionIsRefusedInOneLine(@TempDir Path dir) throws Exception {
    TestCertificate cert = TestCertificate.create(dir, "half", "EC");
    KeelRun.Result noKey = KeelRun.keel("serve", "--tls-cert", cert.certificate().toString());
    assertEquals(2, noKey.code(), noKey.toString());
    assertEquals(
        "keel: --tls-cert needs --tls-key (the certificate's private key)", noKey.err().strip());

    KeelRun.Result both =
        KeelRun.keel(
            "serve",
            "--tls-cert",
            cert.certificate().toString(),
            "--tls-key",
            cert.key().toString(),
            "--insecure-http");
    assertEquals(2, both.code(), both.toString());
    assertTrue(
        both.err().strip().lines().count() == 1 && both.err().contains("--insecure-http"),
        both.toString());

    KeelRun.Result wrongFile =
        KeelRun.keel(
            "serve", "--tls-cert", cert.key().toString(), "--tls-key", cert.key().toString());
    assertEquals(2, wrongFile.code(), wrongFile.toString());
    assertTrue(
        wrongFile.err().strip().lines().count() == 1
            && wrongFile.err().contains(cert.key().toString()),
        wrongFile.toString());
  }

  /**
   * {@code keel ARGS} in a new JVM with the token in its environment; stdout and stderr to
   * dir/out.txt, err.txt.
   */
  private static Process keel(Path dir, String... args) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.keel.service.cli.KeelCli"));
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectOutput(dir.resolve("out.txt").toFile())
            .redirectError(dir.resolve("err.txt").toFile());
    pb.environment().put("KEEL_API_TOKEN", TOKEN);
    return pb.start();
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }

  private static void stop(Process p) throws InterruptedException {
    p.destroy();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }
}
