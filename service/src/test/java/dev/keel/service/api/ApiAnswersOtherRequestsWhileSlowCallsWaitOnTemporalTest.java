package dev.keel.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.service.worker.KeelWorkerHost;
import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Controllers block on Temporal and on Delta reads; they must not do it on Netty's event loops, or
 * a few slow calls (a burst of submissions, a query to a busy or unreachable Temporal) hold up
 * every other request. Here Temporal never answers: as many describe calls as there are event-loop
 * threads, and more, wait on it, and the health endpoint still answers at once. When Temporal goes
 * away, each waiting call answers 503 naming it.
 */
class ApiAnswersOtherRequestsWhileSlowCallsWaitOnTemporalTest {
  @Test
  void healthAnswersAtOnceWhileMoreDescribeCallsThanEventLoopsWaitOnTemporal() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 100, InetAddress.getLoopbackAddress())) {
      List<Socket> held = new CopyOnWriteArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                while (!silent.isClosed()) {
                  try {
                    held.add(
                        silent
                            .accept()); // accepts, never answers: every RPC waits for its deadline
                  } catch (IOException closed) {
                    return;
                  }
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      WorkflowServiceStubs stubs = KeelWorkerHost.connect("127.0.0.1:" + silent.getLocalPort());
      try (ApiServer api =
          ApiServer.start(
              "127.0.0.1",
              0,
              KeelWorkerHost.client(stubs, "default"),
              StorageRoot.of(TestDirs.create("slow-temporal").toString()))) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        int slow = 2 * Runtime.getRuntime().availableProcessors() + 2;
        List<CompletableFuture<HttpResponse<String>>> describes = new ArrayList<>();
        for (int i = 0; i < slow; i++) {
          describes.add(
              http.sendAsync(
                  HttpRequest.newBuilder(
                          URI.create(api.url() + "/api/v1/experiments/experiment-" + i))
                      .timeout(Duration.ofSeconds(60))
                      .build(),
                  HttpResponse.BodyHandlers.ofString()));
        }
        Thread.sleep(1500);
        assertTrue(
            describes.stream().noneMatch(CompletableFuture::isDone),
            "the describe calls wait on Temporal");

        long t = System.nanoTime();
        HttpResponse<String> health =
            http.send(
                HttpRequest.newBuilder(URI.create(api.url() + "/api/v1/health"))
                    .timeout(Duration.ofSeconds(60))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        double seconds = (System.nanoTime() - t) / 1e9;
        assertEquals(200, health.statusCode(), health.body());
        assertTrue(
            seconds < 2,
            "health took " + seconds + " s behind " + slow + " describe calls waiting on Temporal");
        assertTrue(
            describes.stream().filter(CompletableFuture::isDone).count() < slow,
            "the describe calls were still waiting when health answered");

        // Temporal goes away: every waiting call answers 503 naming it (not a 500 and a stack in
        // the server's log), and none is left running into the tests after this one
        stubs.shutdownNow();
        for (CompletableFuture<HttpResponse<String>> describe : describes) {
          HttpResponse<String> answer = describe.get(60, TimeUnit.SECONDS);
          assertEquals(503, answer.statusCode(), answer.body());
          assertTrue(
              answer.body().contains("Temporal at 127.0.0.1:" + silent.getLocalPort()),
              answer.body());
        }
      } finally {
        stubs.shutdownNow();
        for (Socket s : held) {
          s.close();
        }
      }
    }
  }
}
