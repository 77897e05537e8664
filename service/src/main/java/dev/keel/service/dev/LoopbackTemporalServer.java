package dev.keel.service.dev;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's Java test server on a loopback port. {@code TestServer.main} binds every interface,
 * which a dev stack must not do, so the gRPC server is built here on 127.0.0.1 only.
 */
public final class LoopbackTemporalServer implements AutoCloseable {
  private final TestServicesStarter services;
  private final Server server;
  private final String address;

  private LoopbackTemporalServer(TestServicesStarter services, Server server, String address) {
    this.services = services;
    this.server = server;
    this.address = address;
  }

  /**
   * Starts on {@code 127.0.0.1:port} (0 picks a free port); time skipping stays off (real time).
   */
  public static LoopbackTemporalServer start(int port) {
    TestServicesStarter services = new TestServicesStarter(true, 0);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port));
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
    try {
      Server server = builder.build().start();
      return new LoopbackTemporalServer(services, server, "127.0.0.1:" + server.getPort());
    } catch (IOException e) {
      services.close();
      throw new UncheckedIOException(
          "cannot bind Temporal dev server to 127.0.0.1:"
              + port
              + " (is another `keel dev` running? set TEMPORAL_ADDRESS to use it)",
          e);
    }
  }

  /** {@code host:port} for {@code WorkflowServiceStubsOptions.setTarget}. */
  public String address() {
    return address;
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.shutdownNow();
    services.close();
  }
}
