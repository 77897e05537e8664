package dev.keel.service.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.keel.service.api.ApiServer;
import dev.keel.service.api.LoopbackStack;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * DNS rebinding in a real browser against an API without a token (as {@code keel dev} serves it):
 * headless Chromium resolves evil.example to 127.0.0.1. The dashboard opened from 127.0.0.1 or
 * localhost loads and its own reads and writes reach the API; the page from evil.example gets 403
 * for the page, a read and a write, although the browser sees each as same-origin.
 */
@Tag("browser")
class ABrowserPageOnARebindingDomainCannotUseALoopbackApiTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theRebindingPageGets403WhileTheLoopbackPagesWork() throws Exception {
    Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    Path home = Path.of(System.getProperty("keel.home", "..")).toAbsolutePath().normalize();
    assertTrue(
        Files.isExecutable(chromium),
        "no Chromium at " + chromium + " (apt-get install -y chromium; .ci/run does)");
    try (LoopbackStack stack = LoopbackStack.start("rebinding");
        ApiServer api = ApiServer.start("127.0.0.1", 0, stack.client(), stack.root())) {
      Path log =
          Files.createDirectories(Path.of("target/dashboard-screenshots"))
              .resolve("rebinding-check.log");
      ProcessBuilder pb =
          new ProcessBuilder(
                  "node",
                  home.resolve("service/src/it/browser/rebinding-check.js").toString(),
                  Integer.toString(api.port()))
              .redirectError(log.toFile());
      pb.environment().put("NODE_PATH", home.resolve(".tools/node/node_modules").toString());
      pb.environment().put("CHROMIUM", chromium.toString());
      Process browser = pb.start();
      String out =
          new String(browser.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      assertTrue(
          browser.waitFor(3, TimeUnit.MINUTES), "rebinding-check.js did not finish in 3 minutes");
      assertEquals(0, browser.exitValue(), out + "\n" + Files.readString(log));
      JsonNode seen = JSON.readTree(out.substring(out.lastIndexOf('\n') + 1));

      for (String own : new String[] {"127.0.0.1", "localhost"}) {
        JsonNode page = seen.get(own);
        assertEquals(200, page.get("page").asInt(), own + ": " + page);
        assertTrue(
            page.get("responses").toString().contains("200 /api/v1/experiments"),
            "the dashboard's own reads: " + page);
        assertEquals(200, page.get("read").get("status").asInt(), own + ": " + page);
        // the browser sends Origin: http://<own>:<port> with the POST: same origin, so the
        // controller answers
        assertEquals(404, page.get("write").get("status").asInt(), own + ": " + page);
        assertEquals(
            "no experiment no-such-experiment",
            JSON.readTree(page.get("write").get("body").asText()).get("message").asText());
      }
      JsonNode evil = seen.get("evil.example");
      assertEquals(403, evil.get("page").asInt(), evil.toString());
      assertEquals(403, evil.get("read").get("status").asInt(), evil.toString());
      assertEquals(403, evil.get("write").get("status").asInt(), evil.toString());
      assertTrue(evil.get("read").get("body").asText().contains("DNS rebinding"), evil.toString());
      evil.get("responses")
          .forEach(r -> assertTrue(r.asText().startsWith("403 "), "every answer to it: " + evil));
    }
  }
}
