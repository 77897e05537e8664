package dev.keel.gpu.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The store, and what a one-rank group checks before any collective, inside the test JVM. */
class StoreAndGroupInProcessTest {
  private static final String HOST = "127.0.0.1";
  private static final Duration SHORT = Duration.ofMillis(1_500);

  @BeforeAll
  static void load() {
    Engine.getEngine("PyTorch");
    NativeCollectives.load();
  }

  @Test
  void serverOnPortZeroReportsItsPortAndClientsShareKeys() {
    try (Store server = Store.server(HOST, 0, 2, SHORT);
        Store client = Store.client(HOST, server.port(), 2, SHORT)) {
      assertTrue(server.port() > 0, "port " + server.port());
      assertEquals(server.port(), client.port());
      client.set("greeting", "hello".getBytes(StandardCharsets.UTF_8));
      assertArrayEquals("hello".getBytes(StandardCharsets.UTF_8), server.get("greeting"));
      server.set("empty", new byte[0]);
      assertArrayEquals(new byte[0], client.get("empty"));
      assertEquals(3, server.add("counter", 3));
      assertEquals(1, client.add("counter", -2));
    }
  }

  @Test
  void getOfAKeyNobodySetsNamesTheKeyAfterTheTimeout() {
    try (Store server = Store.server(HOST, 0, 1, SHORT)) {
      long started = System.nanoTime();
      CollectiveException e =
          assertThrows(CollectiveException.class, () -> server.get("never-set"));
      long ms = (System.nanoTime() - started) / 1_000_000;
      System.out.println("get timed out after " + ms + " ms: " + e.getMessage());
      assertTrue(e.getMessage().contains("never-set"), e.getMessage());
      assertTrue(ms >= 1_000 && ms < 30_000, ms + " ms: " + e.getMessage());
    }
  }

  @Test
  void aPortAlreadyTakenIsNamedInTheError() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      int port = taken.getLocalPort();
      CollectiveException e =
          assertThrows(CollectiveException.class, () -> Store.server(HOST, port, 2, SHORT));
      System.out.println("port taken: " + e.getMessage());
      assertTrue(e.getMessage().contains(Integer.toString(port)), e.getMessage());
      assertTrue(e.getMessage().split("\\R").length == 1, "one line: " + e.getMessage());
    }
  }

  /**
   * What the GPU host check runs on NCCL, here on Gloo: the library's own tensor, summed exactly.
   */
  @Test
  void theAllreduceCheckOfOneRankIsExact() {
    try (Store store = Store.server(HOST, 0, 1, SHORT);
        GlooProcessGroup pg = GlooProcessGroup.create(store, 0, 1, HOST, SHORT)) {
      assertEquals(0.0, pg.checkAllreduce(1 << 20));
      assertThrows(IllegalArgumentException.class, () -> pg.checkAllreduce(0));
    }
  }

  @Test
  void closeIsIdempotentAndUseAfterCloseIsRefused() {
    Store store = Store.server(HOST, 0, 1, SHORT);
    GlooProcessGroup pg = GlooProcessGroup.create(store, 0, 1, HOST, SHORT);
    store.close(); // the group keeps its own reference to the native store
    pg.barrier();
    pg.close();
    pg.close();
    store.close();
    assertThrows(IllegalStateException.class, pg::barrier);
    assertThrows(IllegalStateException.class, () -> store.get("x"));
  }

  @Test
  void oneRankGroupLeavesArraysAsTheyAreAndRejectsWhatC10dCannotUse() {
    try (Store store = Store.server(HOST, 0, 1, SHORT);
        GlooProcessGroup pg = GlooProcessGroup.create(store, 0, 1, HOST, SHORT);
        NDManager m = NDManager.newBaseManager()) {
      assertEquals("gloo", pg.backend());
      NDArray a = m.arange(0f, 12f).reshape(3, 4);
      NDArray copy = a.duplicate();
      pg.allreduceSum(List.of(a));
      pg.allreduceSumBucketed(List.of(a));
      pg.broadcast(List.of(a), 0);
      assertTrue(copy.contentEquals(a));

      NDArray transposed = m.arange(0f, 12f).reshape(3, 4).transpose();
      CollectiveException e =
          assertThrows(CollectiveException.class, () -> pg.allreduceSum(List.of(transposed)));
      assertTrue(e.getMessage().contains("not contiguous"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> pg.broadcast(List.of(a), 1));
      assertThrows(
          IllegalArgumentException.class, () -> GlooProcessGroup.create(store, 1, 1, HOST, SHORT));
      assertEquals(new Shape(3, 4), a.getShape());
    }
  }

  @Test
  void ncclWithoutAGpuFailsWithOneLine() {
    assumeTrue(Engine.getEngine("PyTorch").getGpuCount() == 0, "this machine has a GPU");
    try (Store store = Store.server(HOST, 0, 1, SHORT)) {
      CollectiveException e =
          assertThrows(
              CollectiveException.class, () -> NcclProcessGroup.create(store, 0, 1, SHORT));
      assertTrue(e.getMessage().contains("CUDA"), e.getMessage());
      assertEquals(1, e.getMessage().split("\\R").length, e.getMessage());
    }
  }
}
