package dev.keel.service.dev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.storage.StorageRoot;
import dev.keel.storage.testing.TestDirs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A second dev stack on ports a running one holds stops before starting anything, naming each taken
 * port and what holds it: Keel's own stack (pid, storage root) or another process. The running
 * stack's record tells a demo which root it serves, and goes away when the stack stops.
 */
class SecondDevStackNamesTheTakenPortAndItsHolderTest {

  @Test
  void theSecondStackNamesTheFirstAndItsStorageRoot() throws Exception {
    int temporalPort = freePort();
    StorageRoot first = StorageRoot.of(TestDirs.create("first-stack").toString());
    StorageRoot second = StorageRoot.of(TestDirs.create("second-stack").toString());
    PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    try (DevStack running =
        DevStack.start(
            new DevStack.Config(DevStack.Backend.EMBEDDED, null, temporalPort, 0, first, -1, 1),
            quiet)) {
      LocalStacks.Stack recorded = LocalStacks.on(temporalPort).orElseThrow();
      assertEquals(first.toString(), recorded.storage());
      assertEquals(ProcessHandle.current().pid(), recorded.pid());

      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  DevStack.start(
                      new DevStack.Config(
                          DevStack.Backend.EMBEDDED, null, temporalPort, 0, second, -1, 1),
                      quiet));
      assertTrue(
          e.getMessage()
              .startsWith(
                  "port "
                      + temporalPort
                      + " (Temporal) is taken by Keel's dev stack (pid "
                      + ProcessHandle.current().pid()
                      + ", storage "
                      + first
                      + ", started "),
          e.getMessage());
      assertTrue(
          e.getMessage()
              .endsWith(
                  ": stop it, choose other ports (--port, --ui-port, --api-port),"
                      + " or run `keel demo` against it"),
          e.getMessage());
    }
    assertFalse(LocalStacks.on(temporalPort).isPresent(), "the record goes with the stack");
  }

  @Test
  void aDemoAttachingToARunningStackUsesItsRootAndRefusesAnotherNamedOne() throws Exception {
    StorageRoot theirs = StorageRoot.of(TestDirs.create("running-stack").toString());
    StorageRoot mine = StorageRoot.of(TestDirs.create("my-demo").toString());
    LocalStacks.Stack running =
        new LocalStacks.Stack(4242, theirs.toString(), 7233, 8233, 8080, "CLI", "then");
    assertEquals(
        theirs.toString(),
        LocalStacks.rootForAttaching(running, Optional.empty()).toString(),
        "no --storage: the stack's root");
    assertEquals(
        theirs.toString(),
        LocalStacks.rootForAttaching(running, Optional.of(StorageRoot.of(theirs + "/"))).toString(),
        "the same root, spelt with a slash");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LocalStacks.rootForAttaching(running, Optional.of(mine)));
    assertEquals(
        "the Keel dev stack on 127.0.0.1:7233 (pid 4242) serves storage "
            + theirs
            + ", not "
            + mine
            + ": stop it, or run without --storage (or with --storage "
            + theirs
            + ")",
        e.getMessage());
  }

  @Test
  void aPortHeldByAnotherProgramIsNamedAsSuch() throws Exception {
    try (ServerSocket other = new ServerSocket()) {
      other.bind(new InetSocketAddress("127.0.0.1", 0));
      int port = other.getLocalPort();
      StorageRoot root = StorageRoot.of(TestDirs.create("blocked-stack").toString());
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  DevStack.start(
                      new DevStack.Config(
                          DevStack.Backend.EMBEDDED, null, freePort(), 0, root, port, 1),
                      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)));
      assertEquals(
          "port "
              + port
              + " (REST API) is taken by another process (not a Keel dev stack): stop it, choose"
              + " other ports (--port, --ui-port, --api-port), or run `keel demo` against it",
          e.getMessage());
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }
}
