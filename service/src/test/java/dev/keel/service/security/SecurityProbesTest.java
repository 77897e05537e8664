package dev.keel.service.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.api.TestCertificate;
import dev.keel.service.dev.DevStack;
import dev.keel.service.dev.LoopbackTemporalServer;
import dev.keel.service.testing.Poll;
import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every probe of the security review, kept as data and run against a real {@code keel serve}
 * process (HTTPS, a tokens file, a data root) and a real {@code keel dev} stack (loopback, no
 * token): tokens and roles, revoked tokens, path tricks, files outside the roots by every path
 * field, symbolic links and {@code ..}, DNS rebinding Hosts and Origins, plain HTTP to the TLS
 * port. Each answer must be the expected status; no answer of the suite may carry a file's content,
 * a Java class name or a stack frame; a refused request writes nothing and starts nothing. The
 * table of probes and what they got is written to {@code target/security-probes.txt}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecurityProbesTest {
  private static final String SECRET_LINE = "root:$6$probe$notarealhash:20228:0:99999:7:::";

  /**
   * A Java class name or a stack frame, in any answer: what an attacker learns the server's insides
   * from.
   */
  private static final Pattern JAVA =
      Pattern.compile(
          "\\b(java|javax|jakarta|io\\.temporal|io\\.micronaut|io\\.netty|io\\.grpc|dev\\.keel)\\.[a-z]+\\.|\\tat |Exception\\b");

  private static final String HUGE_SEARCH =
      """
      name: huge
      data: {table: t}
      hyperparameters: {lr: {type: log, minval: -4, maxval: -1, base: 10}}
      searcher: {name: adaptive_asha, metric: validation_accuracy, smaller_is_better: false, max_trials: 1000000000,
                 max_length: {batches: 1000}}
      """;
  private static final String NINE_MB =
      "name: big\ndescription: '" + "x".repeat(9 * 1024 * 1024) + "'\n";

  private record Probe(
      String name,
      String server,
      String method,
      String path,
      String token,
      Map<String, String> headers,
      String body,
      int expected) {}

  private record Answer(int status, String body) {}

  private final Map<String, String> tokens = new LinkedHashMap<>();
  private final List<String> rows = new ArrayList<>();
  private Path base;
  private Path data;
  private Path outside;
  private Path serveStorage;
  private LoopbackTemporalServer temporal;
  private WorkflowServiceStubs stubs;
  private TestCertificate cert;
  private Process serve;
  private String serveUrl;
  private DevStack dev;
  private int devPort;
  private Path devStorage;

  @BeforeAll
  void startServers() throws Exception {
    base = TestDirs.create("probes");
    data = Files.createDirectories(base.resolve("data"));
    outside = Files.createDirectories(base.resolve("etc"));
    Files.writeString(outside.resolve("passwd"), SECRET_LINE + "\n");
    Files.createSymbolicLink(data.resolve("escape"), outside);
    Files.writeString(data.resolve("passwd.csv"), SECRET_LINE + "\n" + SECRET_LINE + "\n");
    Path tokensFile = base.resolve("tokens.yaml");
    for (String role : List.of("viewer", "editor", "admin", "revoked")) {
      String token = newToken();
      tokens.put(role, token);
      TokensFile.put(
          tokensFile,
          new TokensFile.Entry(
              role + "-user",
              role.equals("revoked") ? Role.ADMIN : Role.parse(role),
              TokensFile.sha256Hex(token)));
    }
    TokensFile.revoke(tokensFile, "revoked-user");

    temporal = LoopbackTemporalServer.start(0);
    stubs = KeelWorkerHost.connect(temporal.address());
    cert = TestCertificate.create(base, "probes", "EC");
    serveStorage = Files.createDirectories(base.resolve("serve-storage"));
    serve =
        keel(
            base,
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            "0",
            "--tls-cert",
            cert.certificate().toString(),
            "--tls-key",
            cert.key().toString(),
            "--tokens",
            tokensFile.toString(),
            "--data-root",
            data.toString(),
            "--storage",
            serveStorage.toString(),
            "--temporal",
            temporal.address());
    Pattern started = Pattern.compile("Keel API on https://[^:]+:(\\d+) ");
    Poll.until(
        "keel serve to print its URL or end",
        Duration.ofMinutes(3),
        () -> !serve.isAlive() || started.matcher(read(base.resolve("out.txt"))).find());
    Matcher m = started.matcher(read(base.resolve("out.txt")));
    assertTrue(
        m.find(),
        "keel serve ended: " + read(base.resolve("out.txt")) + read(base.resolve("err.txt")));
    serveUrl = "https://127.0.0.1:" + m.group(1);

    devStorage = Files.createDirectories(base.resolve("dev-storage"));
    devPort = freePort();
    dev =
        DevStack.start(
            new DevStack.Config(
                DevStack.Backend.EMBEDDED,
                null,
                freePort(),
                0,
                StorageRoot.of(devStorage.toString()),
                devPort,
                1,
                List.of(data.toString())),
            new PrintStream(OutputStream.nullOutputStream()));
  }

  @AfterAll
  void stopServers() throws Exception {
    if (serve != null) {
      serve.destroy();
      if (!serve.waitFor(30, TimeUnit.SECONDS)) {
        serve.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
    if (dev != null) {
      dev.close();
    }
    if (stubs != null) {
      stubs.shutdown();
    }
    if (temporal != null) {
      temporal.close();
    }
  }

  @Test
  void everyProbeGetsItsExpectedAnswerAndNoneLeaksOrWrites() throws Exception {
    List<Probe> probes = probes();
    int asExpected = 0;
    List<String> failures = new ArrayList<>();
    for (Probe p : probes) {
      Answer a = send(p);
      boolean ok = a.status() == p.expected();
      asExpected += ok ? 1 : 0;
      rows.add(
          String.format(
              "%-5s %-4s %-60s %-8s expected %d got %d%s",
              p.server(),
              p.method(),
              p.name(),
              p.token() == null ? "-" : p.token(),
              p.expected(),
              a.status(),
              ok ? "" : "  <-- " + a.body()));
      if (!ok) {
        failures.add(
            p.name() + ": expected " + p.expected() + ", got " + a.status() + " " + a.body());
      }
      if (a.body().contains("$6$probe") || a.body().contains("root:")) {
        failures.add(p.name() + ": a file's content in " + a.body());
      }
      Matcher java = JAVA.matcher(a.body());
      if (java.find()) {
        failures.add(p.name() + ": Java insides ('" + java.group() + "') in " + a.body());
      }
    }
    rows.add(0, probes.size() + " probes, " + asExpected + " answered as expected");
    Files.write(Path.of("target", "security-probes.txt"), rows);
    assertEquals(List.of(), failures, String.join("\n", rows));

    // nothing written or started by any of them
    assertFalse(Files.exists(serveStorage.resolve("tables")), "a refused request wrote a table");
    assertFalse(Files.exists(devStorage.resolve("tables")), "a refused request wrote a table");
    assertFalse(Files.exists(outside.resolve("_delta_log")), "written outside the roots");
    assertEquals(
        0,
        stubs
            .blockingStub()
            .listOpenWorkflowExecutions(
                ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace("default").build())
            .getExecutionsCount(),
        "a refused request started a workflow");
  }

  /**
   * The costly probes answer within a wall-clock cap (the target is under a second; the cap allows
   * a busy machine).
   */
  @Test
  void aHugeSearchAndAHugeBodyAreRefusedWithinTheCap() throws Exception {
    Probe hugeSearch =
        new Probe(
            "preview 1e9",
            "serve",
            "POST",
            "/api/v1/experiments/preview",
            "editor",
            yaml(),
            HUGE_SEARCH,
            400);
    for (Probe p :
        List.of(
            hugeSearch,
            new Probe(
                "9 MB",
                "serve",
                "POST",
                "/api/v1/experiments/preview",
                "editor",
                yaml(),
                NINE_MB,
                413))) {
      long started = System.nanoTime();
      Answer a = send(p);
      double seconds = (System.nanoTime() - started) / 1e9;
      assertEquals(p.expected(), a.status(), a.body());
      assertTrue(seconds < 5, p.name() + " took " + seconds + " s");
      rows.add(String.format("%s answered %d in %.3f s", p.name(), a.status(), seconds));
    }
    assertTrue(
        send(hugeSearch).body().contains("searcher.max_trials"),
        "the answer names the limit's field");
  }

  @Test
  void plainHttpToTheTlsPortGetsNoHttpAnswer() throws Exception {
    int port = URI.create(serveUrl).getPort();
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(5_000);
      s.getOutputStream()
          .write(
              ("GET /api/v1/models HTTP/1.1\r\nHost: 127.0.0.1:"
                      + port
                      + "\r\nAuthorization: Bearer "
                      + tokens.get("admin")
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      String answer = readSome(s.getInputStream());
      assertFalse(answer.startsWith("HTTP/1.1 200") || answer.contains("\"versions\""), answer);
    }
  }

  private List<Probe> probes() {
    List<Probe> p = new ArrayList<>();
    // tokens
    p.add(new Probe("no token", "serve", "GET", "/api/v1/experiments", null, Map.of(), null, 401));
    p.add(
        new Probe(
            "a wrong token", "serve", "GET", "/api/v1/experiments", "wrong", Map.of(), null, 401));
    p.add(
        new Probe(
            "63 of the viewer token's 64 characters",
            "serve",
            "GET",
            "/api/v1/experiments",
            "short",
            Map.of(),
            null,
            401));
    p.add(
        new Probe(
            "a revoked token",
            "serve",
            "GET",
            "/api/v1/experiments",
            "revoked",
            Map.of(),
            null,
            401));
    p.add(
        new Probe("health without a token", "serve", "GET", "/health", null, Map.of(), null, 200));
    // path tricks
    for (String trick :
        List.of(
            "/api/v1/..;/api/v1/experiments",
            "/%2e%2e/api/v1/experiments",
            "//api/v1/experiments",
            "/dashboard/../api/v1/experiments",
            "/health/../api/v1/experiments")) {
      p.add(new Probe("path trick " + trick, "serve", "GET", trick, null, Map.of(), null, -4));
    }
    // roles
    p.add(
        new Probe(
            "viewer reads", "serve", "GET", "/api/v1/experiments", "viewer", Map.of(), null, 200));
    p.add(
        new Probe(
            "viewer submits",
            "serve",
            "POST",
            "/api/v1/experiments",
            "viewer",
            yaml(),
            experiment("t"),
            403));
    p.add(
        new Probe(
            "viewer previews",
            "serve",
            "POST",
            "/api/v1/experiments/preview",
            "viewer",
            yaml(),
            experiment("t"),
            403));
    p.add(
        new Probe(
            "viewer kills",
            "serve",
            "POST",
            "/api/v1/experiments/x/kill",
            "viewer",
            yaml(),
            "",
            403));
    p.add(
        new Probe(
            "editor promotes",
            "serve",
            "POST",
            "/api/v1/models/m/1/promote",
            "editor",
            Map.of("Content-Type", "application/json"),
            "{\"stage\":\"champion\"}",
            403));
    p.add(
        new Probe(
            "editor reads the audit log",
            "serve",
            "GET",
            "/api/v1/audit",
            "editor",
            Map.of(),
            null,
            403));
    p.add(
        new Probe(
            "admin reads the audit log",
            "serve",
            "GET",
            "/api/v1/audit",
            "admin",
            Map.of(),
            null,
            200));
    // files outside the roots, by every field and spelling
    String passwd = outside.resolve("passwd").toString();
    for (String uri :
        List.of(
            passwd,
            data + "/../etc/passwd",
            data.resolve("escape/passwd").toString(),
            "file://" + passwd,
            "file:" + passwd,
            "file://" + data + "/%2e%2e/etc/passwd",
            outside.resolve("no-such-file").toString())) {
      p.add(
          new Probe(
              "source.uri " + uri,
              "serve",
              "POST",
              "/api/v1/pipelines",
              "editor",
              yaml(),
              pipeline(
                  "source: {format: csv, uri: '" + uri + "', label_column: label}",
                  "target_table: t"),
              400));
      p.add(
          new Probe(
              "dev source.uri " + uri,
              "dev",
              "POST",
              "/api/v1/pipelines",
              null,
              yaml(),
              pipeline(
                  "source: {format: csv, uri: '" + uri + "', label_column: label}",
                  "target_table: t"),
              400));
    }
    p.add(
        new Probe(
            "a passwd-like file inside a root is not quoted",
            "serve",
            "POST",
            "/api/v1/pipelines",
            "editor",
            yaml(),
            pipeline(
                "source: {format: csv, uri: '"
                    + data.resolve("passwd.csv")
                    + "', label_column: label}",
                "target_table: t"),
            400));
    String source =
        "source: {format: csv, uri: '" + data.resolve("passwd.csv") + "', label_column: label}";
    p.add(
        new Probe(
            "target_table ..",
            "serve",
            "POST",
            "/api/v1/pipelines",
            "editor",
            yaml(),
            pipeline(source, "target_table: '..'"),
            400));
    p.add(
        new Probe(
            "target_table outside",
            "serve",
            "POST",
            "/api/v1/pipelines",
            "editor",
            yaml(),
            pipeline(source, "target_table: '" + outside + "'"),
            400));
    p.add(
        new Probe(
            "inference.predictions_table ../..",
            "serve",
            "POST",
            "/api/v1/pipelines",
            "editor",
            yaml(),
            pipeline(
                source, "target_table: t\ninference: {predictions_table: '" + data + "/../../p'}"),
            400));
    p.add(
        new Probe(
            "reuse.table ../../../etc",
            "serve",
            "POST",
            "/api/v1/pipelines",
            "editor",
            yaml(),
            """
        name: probe
        reuse: {table: {table: '../../../../etc'}}
        experiment:
          hyperparameters: {batch_size: 8}
          searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 1}}
        """,
            400));
    p.add(
        new Probe(
            "experiment data.table ../../../etc",
            "serve",
            "POST",
            "/api/v1/experiments",
            "editor",
            yaml(),
            experiment("'../../../../../etc'"),
            400));
    p.add(
        new Probe(
            "checkpoint_storage.storage_path outside",
            "serve",
            "POST",
            "/api/v1/experiments",
            "editor",
            yaml(),
            experiment("t") + "checkpoint_storage: {storage_path: '" + outside.toUri() + "'}\n",
            400));
    for (String table : List.of("../_keel/models", "/etc", outside.toString(), data + "/../etc")) {
      p.add(
          new Probe(
              "data/describe " + table,
              "serve",
              "GET",
              "/api/v1/data/describe?table=" + URLEncoder.encode(table, StandardCharsets.UTF_8),
              "viewer",
              Map.of(),
              null,
              400));
    }
    p.add(
        new Probe(
            "pipeline name ../../evil-name",
            "serve",
            "POST",
            "/api/v1/pipelines",
            "editor",
            yaml(),
            pipeline(source, "target_table: t").replace("name: probe", "name: ../../evil-name"),
            400));
    // work a request may ask for
    p.add(
        new Probe(
            "a preview of 1e9 trials",
            "serve",
            "POST",
            "/api/v1/experiments/preview",
            "editor",
            yaml(),
            HUGE_SEARCH,
            400));
    p.add(
        new Probe(
            "a 9 MB YAML body",
            "serve",
            "POST",
            "/api/v1/experiments",
            "editor",
            yaml(),
            NINE_MB,
            413));
    p.add(
        new Probe(
            "dev: a preview of 1e9 trials",
            "dev",
            "POST",
            "/api/v1/experiments/preview",
            null,
            yaml(),
            HUGE_SEARCH,
            400));
    // DNS rebinding against keel dev
    String port = ":" + devPort;
    p.add(
        new Probe(
            "Host evil.example",
            "dev",
            "GET",
            "/api/v1/experiments",
            null,
            Map.of("Host", "evil.example" + port),
            null,
            403));
    p.add(
        new Probe(
            "Host and Origin evil.example, a write",
            "dev",
            "POST",
            "/api/v1/experiments/x/kill",
            null,
            Map.of("Host", "evil.example" + port, "Origin", "http://evil.example" + port),
            "",
            403));
    p.add(
        new Probe(
            "loopback Host, Origin evil.example, a write",
            "dev",
            "POST",
            "/api/v1/experiments/x/kill",
            null,
            Map.of("Host", "127.0.0.1" + port, "Origin", "http://evil.example"),
            "",
            403));
    p.add(
        new Probe(
            "loopback Host on another port",
            "dev",
            "GET",
            "/api/v1/experiments",
            null,
            Map.of("Host", "127.0.0.1:1"),
            null,
            403));
    p.add(
        new Probe(
            "Host localhost",
            "dev",
            "GET",
            "/api/v1/experiments",
            null,
            Map.of("Host", "localhost" + port),
            null,
            200));
    p.add(
        new Probe(
            "Host [::1]",
            "dev",
            "GET",
            "/api/v1/experiments",
            null,
            Map.of("Host", "[::1]" + port),
            null,
            200));
    p.add(
        new Probe(
            "same-origin write",
            "dev",
            "POST",
            "/api/v1/experiments/x/kill",
            null,
            Map.of("Host", "127.0.0.1" + port, "Origin", "http://127.0.0.1" + port),
            "",
            404));
    return p;
  }

  /** Expected -4 means "refused somehow": 400, 401, 403 or 404, never an answer with data. */
  private Answer send(Probe p) throws Exception {
    Answer a = p.server().equals("serve") ? sendServe(p) : sendDev(p);
    if (p.expected() == -4) {
      return new Answer(
          List.of(400, 401, 403, 404).contains(a.status()) ? -4 : a.status(), a.body());
    }
    return a;
  }

  private Answer sendServe(Probe p) throws Exception {
    String token =
        p.token() == null
            ? null
            : switch (p.token()) {
              case "wrong" -> "0000000000000000000000000000000000000000000000000000000000000000";
              case "short" -> tokens.get("viewer").substring(0, 63);
              default -> tokens.get(p.token());
            };
    Map<String, String> headers = new LinkedHashMap<>(Map.of("Host", "keel.example"));
    if (token != null) {
      headers.put("Authorization", "Bearer " + token);
    }
    headers.putAll(p.headers());
    // the path as given, also its tricks: through a raw TLS socket, since clients normalise paths
    try (Socket s =
        cert.trustingIt()
            .getSocketFactory()
            .createSocket("127.0.0.1", URI.create(serveUrl).getPort())) {
      return exchange(s, p, headers);
    }
  }

  private Answer sendDev(Probe p) throws Exception {
    Map<String, String> headers = new LinkedHashMap<>(Map.of("Host", "127.0.0.1:" + devPort));
    headers.putAll(p.headers());
    try (Socket s = new Socket("127.0.0.1", devPort)) {
      return exchange(s, p, headers);
    }
  }

  /** The probe's request, as written, with {@code headers}: one HTTP/1.1 exchange on {@code s}. */
  private static Answer exchange(Socket s, Probe p, Map<String, String> headers)
      throws IOException {
    s.setSoTimeout(30_000);
    byte[] body = p.body() == null ? new byte[0] : p.body().getBytes(StandardCharsets.UTF_8);
    StringBuilder head =
        new StringBuilder(
            p.method()
                + " "
                + p.path()
                + " HTTP/1.1\r\nConnection: close\r\nContent-Length: "
                + body.length
                + "\r\n");
    headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
    return exchange(s, head + "\r\n", body);
  }

  /**
   * Sends the head, then the body unless the server answered already (a body over the limit is
   * refused on its Content-Length, and the connection closed), and reads the answer.
   */
  private static Answer exchange(Socket s, String head, byte[] body) throws IOException {
    s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    if (body.length > 0) {
      s.setSoTimeout(500);
      ByteArrayOutputStream early = new ByteArrayOutputStream();
      try {
        byte[] buf = new byte[8192];
        int n = s.getInputStream().read(buf);
        if (n > 0) {
          early.write(buf, 0, n);
          s.setSoTimeout(30_000);
          return parse(early.toString(StandardCharsets.UTF_8) + readSome(s.getInputStream()));
        }
      } catch (SocketTimeoutException notYet) {
        // the server waits for the body
      }
      s.setSoTimeout(30_000);
      try {
        s.getOutputStream().write(body);
      } catch (SocketException closed) {
        // it answered while the body was on its way: read what it said
      }
    }
    return parse(readSome(s.getInputStream()));
  }

  private static Answer parse(String raw) {
    if (!raw.startsWith("HTTP/1.1 ")) {
      return new Answer(0, raw);
    }
    int status = Integer.parseInt(raw.substring(9, 12));
    int split = raw.indexOf("\r\n\r\n");
    return new Answer(status, split < 0 ? "" : raw.substring(split + 4));
  }

  private static String readSome(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try {
      for (int n; (n = in.read(buf)) > 0; ) {
        out.write(buf, 0, n);
      }
    } catch (SocketTimeoutException | SSLException e) {
      // what came is what it said
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static Map<String, String> yaml() {
    return Map.of("Content-Type", "application/yaml");
  }

  private static String pipeline(String source, String tables) {
    return """
        name: probe
        %s
        %s
        experiment:
          hyperparameters: {batch_size: 8}
          searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 1}}
          model: {name: tabular_mlp}
        """
        .formatted(source, tables);
  }

  private static String experiment(String table) {
    return """
        name: probe
        data: {table: %s}
        hyperparameters: {batch_size: 8}
        searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: {batches: 1}}
        """
        .formatted(table);
  }

  private static String newToken() {
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    return HexFormat.of().formatHex(secret);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }

  /** {@code keel ARGS} in a new JVM; stdout and stderr to dir/out.txt and err.txt. */
  private static Process keel(Path dir, String... args) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx768m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.keel.service.cli.KeelCli"));
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectOutput(dir.resolve("out.txt").toFile())
        .redirectError(dir.resolve("err.txt").toFile())
        .start();
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }
}
