package dev.keel.service.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.api.ApiServer;
import dev.keel.service.api.ApiToken;
import dev.keel.service.api.LoopbackStack;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * DNS rebinding against a loopback API without a token ({@code keel dev}): a page on evil.example
 * whose name now points at 127.0.0.1 sends {@code Host: evil.example:<port>}, and another site's
 * page calls with its own {@code Origin}. Such requests get 403 and a one-line JSON message;
 * requests addressed to 127.0.0.1, localhost or [::1] on the server's port, and writes from those
 * origins or from no web page at all (curl, the CLI), are served. The probes use a raw socket,
 * since the JDK's HTTP client will not set {@code Host}.
 */
class ApiWithoutATokenAnswersOnlyItsLoopbackNamesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "0123456789abcdef0123456789abcdef";
  private static final String PAUSE = "/api/v1/experiments/no-such-experiment/pause";
  private static LoopbackStack stack;
  private static ApiServer api;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    stack = LoopbackStack.start("host-check");
    api = ApiServer.start("127.0.0.1", 0, stack.client(), stack.root());
    port = api.port();
  }

  @AfterAll
  static void stop() {
    api.close();
    stack.close();
  }

  @Test
  void aForeignHostIsRefusedForReadsAndWrites() throws Exception {
    Reply read = send(port, "GET", "/api/v1/models", "evil.example:" + port, null, null);
    assertEquals(403, read.status(), read.toString());
    String message = JSON.readTree(read.body()).get("message").asText();
    assertTrue(
        message.contains("'evil.example:" + port + "'")
            && message.contains("DNS rebinding")
            && message.contains("127.0.0.1:" + port),
        message);
    assertOneLineWithoutTrace(read);

    // the rebinding page's own origin matches its Host: still refused, and the controller never
    // runs
    Reply write =
        send(port, "POST", PAUSE, "evil.example:" + port, "http://evil.example:" + port, null);
    assertEquals(403, write.status(), write.toString());
    assertTrue(write.body().contains("evil.example"), write.body());
    assertOneLineWithoutTrace(write);

    assertEquals(
        403,
        send(port, "GET", "/api/v1/models", "127.0.0.1:" + (port + 1), null, null).status(),
        "a loopback name on another port is another server's");
    assertEquals(
        403, send(port, "GET", "/", "evil.example", null, null).status(), "the dashboard page too");
    assertEquals(
        403,
        send(port, "GET", "/api/v1/models", "localhost.evil.example:" + port, null, null).status());
  }

  @Test
  void loopbackNamesOnTheServersPortAreServed() throws Exception {
    for (String host :
        new String[] {
          "localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "LocalHost:" + port
        }) {
      Reply r = send(port, "GET", "/api/v1/models", host, null, null);
      assertEquals(200, r.status(), host + ": " + r);
    }
  }

  @Test
  void aCallFromAForeignOriginIsRefusedAndASameOriginWriteReachesTheController() throws Exception {
    Reply foreign = send(port, "POST", PAUSE, "127.0.0.1:" + port, "http://evil.example", null);
    assertEquals(403, foreign.status(), foreign.toString());
    String message = JSON.readTree(foreign.body()).get("message").asText();
    assertTrue(
        message.contains("'http://evil.example'")
            && message.contains("http(s)://127.0.0.1:" + port),
        message);
    assertOneLineWithoutTrace(foreign);
    Reply foreignRead =
        send(port, "GET", "/api/v1/models", "127.0.0.1:" + port, "http://evil.example", null);
    assertEquals(403, foreignRead.status(), foreignRead.toString());
    assertTrue(
        foreignRead.body().contains("'http://evil.example'"),
        "says why, unlike Micronaut's CORS 403: " + foreignRead);
    assertEquals(
        403,
        send(port, "POST", PAUSE, "127.0.0.1:" + port, "null", null).status(),
        "a sandboxed page");
    assertEquals(
        403,
        send(port, "POST", PAUSE, "127.0.0.1:" + port, "http://127.0.0.1:" + (port + 1), null)
            .status(),
        "another port is another origin");

    for (String origin :
        new String[] {"http://127.0.0.1:" + port, "http://localhost:" + port, null}) {
      Reply same = send(port, "POST", PAUSE, "127.0.0.1:" + port, origin, null);
      assertEquals(404, same.status(), origin + ": " + same);
      assertEquals(
          "no experiment no-such-experiment",
          JSON.readTree(same.body()).get("message").asText(),
          "the controller's own answer");
    }
  }

  @Test
  void withATokenTheHostIsNotCheckedSinceTheTokenIsTheProtection() throws Exception {
    try (ApiServer withToken =
        ApiServer.start("127.0.0.1", 0, stack.client(), stack.root(), ApiToken.of(TOKEN))) {
      Reply r =
          send(
              withToken.port(),
              "GET",
              "/api/v1/models",
              "keel.internal:" + withToken.port(),
              null,
              "Bearer " + TOKEN);
      assertEquals(200, r.status(), r.toString());
      assertEquals(
          401,
          send(withToken.port(), "GET", "/api/v1/models", "evil.example", null, null).status());
    }
  }

  private static void assertOneLineWithoutTrace(Reply r) {
    assertTrue(
        r.headers().toLowerCase(Locale.ROOT).contains("content-type: application/json"),
        r.headers());
    assertFalse(
        r.body().contains("\n") || r.body().contains("Exception") || r.body().contains("\tat "),
        r.body());
  }

  record Reply(int status, String headers, String body) {}

  /** One HTTP/1.1 request on a new connection to 127.0.0.1, with exactly these headers. */
  private static Reply send(
      int port, String method, String path, String host, String origin, String authorization)
      throws IOException {
    StringBuilder request =
        new StringBuilder(method + " " + path + " HTTP/1.1\r\n")
            .append("Host: ")
            .append(host)
            .append("\r\n")
            .append("Connection: close\r\n");
    if (origin != null) {
      request.append("Origin: ").append(origin).append("\r\n");
    }
    if (authorization != null) {
      request.append("Authorization: ").append(authorization).append("\r\n");
    }
    if (method.equals("POST")) {
      request.append("Content-Type: application/json\r\nContent-Length: 0\r\n");
    }
    request.append("\r\n");
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(60_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      String reply = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int end = reply.indexOf("\r\n\r\n");
      String head = end < 0 ? reply : reply.substring(0, end);
      String body = end < 0 ? "" : reply.substring(end + 4);
      if (head.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked")) {
        body = unchunk(body);
      }
      return new Reply(Integer.parseInt(head.split(" ", 3)[1]), head, body);
    }
  }

  private static String unchunk(String chunked) {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (true) {
      int eol = chunked.indexOf("\r\n", at);
      int size = Integer.parseInt(chunked.substring(at, eol).split(";")[0].strip(), 16);
      if (size == 0) {
        return out.toString();
      }
      out.append(chunked, eol + 2, eol + 2 + size);
      at = eol + 2 + size + 2;
    }
  }
}
