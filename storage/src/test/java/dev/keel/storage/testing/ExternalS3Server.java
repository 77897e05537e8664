package dev.keel.storage.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An S3 server other than the embedded S3Proxy, started as its own process on 127.0.0.1 for the S3
 * tests of a module to run against: MinIO ({@code <keel home>/.tools/minio}, built with {@code go
 * install github.com/minio/minio@latest}) or moto's server ({@code <keel
 * home>/.tools/s3env/bin/moto_server}, from PyPI {@code moto[server]}). {@code .ci/run} installs
 * both; the modules' {@code s3-minio} and {@code s3-moto} Maven profiles, active when the binary is
 * there, run the S3 tests again with {@code keel.test.s3.server=minio|moto}. moto checks no
 * credentials, so tests about wrong credentials ({@code @Tag("s3-credentials")}) are not run
 * against it.
 */
public final class ExternalS3Server {
  private ExternalS3Server() {}

  /** Starts the server {@code kind} names and returns its endpoint; it stops when the JVM exits. */
  static URI start(String kind, String accessKey, String secretKey)
      throws IOException, InterruptedException {
    return start(kind, accessKey, secretKey, Map.of());
  }

  /**
   * Starts a moto server of its own (not the JVM's S3 server), its environment plus {@code
   * environment} (e.g. {@code MOTO_EC2_ENABLE_INSTANCE_TYPE_VALIDATION=true}), for tests of other
   * AWS APIs (Auto Scaling, EC2); it checks no credentials and stops when the JVM exits.
   */
  public static URI startMoto(Map<String, String> environment)
      throws IOException, InterruptedException {
    return start("moto", "", "", environment);
  }

  private static URI start(
      String kind, String accessKey, String secretKey, Map<String, String> environment)
      throws IOException, InterruptedException {
    Path home = Path.of(System.getProperty("keel.home", ".")).toAbsolutePath().normalize();
    int port = freePort();
    ProcessBuilder pb;
    switch (kind) {
      case "minio" -> {
        Path binary = home.resolve(".tools/minio");
        Path data = Files.createTempDirectory("keel-minio");
        pb =
            new ProcessBuilder(
                List.of(
                    require(binary).toString(),
                    "server",
                    data.toString(),
                    "--address",
                    "127.0.0.1:" + port,
                    "--console-address",
                    "127.0.0.1:" + freePort(),
                    "--quiet"));
        Map<String, String> env = pb.environment();
        env.put("MINIO_ROOT_USER", accessKey);
        env.put("MINIO_ROOT_PASSWORD", secretKey);
        env.put("MINIO_BROWSER", "off");
      }
      case "moto" -> {
        // moto's own conditional PUT is not atomic across its threads: run it one request at a
        // time (see the script), with the Python of the venv that holds it
        require(home.resolve(".tools/s3env/bin/moto_server"));
        Path python = home.resolve(".tools/s3env/bin/python");
        pb =
            new ProcessBuilder(
                List.of(
                    require(python).toString(),
                    serializedMotoScript().toString(),
                    "127.0.0.1",
                    Integer.toString(port)));
      }
      default ->
          throw new IllegalArgumentException(
              "keel.test.s3.server=" + kind + ": expected s3proxy, minio or moto");
    }
    pb.environment().putAll(environment);
    Path log = Files.createTempFile("keel-" + kind, ".log");
    pb.redirectErrorStream(true).redirectOutput(log.toFile());
    Process process = pb.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  process.destroy();
                  try {
                    process.waitFor(10, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  process.destroyForcibly();
                },
                kind + "-stop"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!listening(port)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            kind
                + " exited with "
                + process.exitValue()
                + " before listening; its log: "
                + Files.readString(log));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            kind + " did not listen on 127.0.0.1:" + port + " within 60 s; its log: " + log);
      }
      Thread.sleep(100);
    }
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The launcher script, copied out of the class path (it may sit in a jar). */
  private static Path serializedMotoScript() throws IOException {
    Path script = Files.createTempFile("keel-moto-", ".py");
    try (var in = ExternalS3Server.class.getResourceAsStream("serialized_moto_server.py")) {
      if (in == null) {
        throw new IllegalStateException("serialized_moto_server.py is not on the class path");
      }
      Files.copy(in, script, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    script.toFile().deleteOnExit();
    return script;
  }

  private static Path require(Path binary) {
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(binary + " is missing: .ci/run installs it");
    }
    return binary;
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }
}
