package dev.keel.gpu.collective;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * c10d's {@code TCPStore}: the key-value store where the ranks of a {@link ProcessGroup} find each
 * other. One rank (or the coordinator) runs the {@link #server}, every other rank is a {@link
 * #client}; both sides can read and write. {@link #get} waits for a key that is not set yet, up to
 * the store's timeout.
 *
 * <p>A process group keeps its own reference to the native store, so closing the store after
 * creating a group is safe. Thread-safe; {@link #close} is idempotent and waits for operations in
 * flight.
 */
public final class Store implements AutoCloseable {
  private final NativeHandle handle;
  private final String host;
  private final int port;

  private Store(long pointer, String host) {
    this.handle = new NativeHandle("store " + host, pointer, C10d::storeFree);
    this.host = host;
    this.port = C10d.storePort(pointer);
  }

  /**
   * Listens on {@code host:port}; port 0 picks a free port ({@link #port} tells which). Returns at
   * once, without waiting for the clients.
   *
   * @param worldSize the number of ranks that will use the store
   * @param timeout how long {@link #get} (and a process group's rendezvous) waits for a key
   * @throws CollectiveException when the port is taken or the address cannot be bound
   */
  public static Store server(String host, int port, int worldSize, Duration timeout) {
    return open(host, port, worldSize, timeout, true);
  }

  /**
   * Connects to a server at {@code host:port}, retrying until {@code timeout}.
   *
   * @throws CollectiveException when no server answers within the timeout
   */
  public static Store client(String host, int port, int worldSize, Duration timeout) {
    return open(host, port, worldSize, timeout, false);
  }

  private static Store open(
      String host, int port, int worldSize, Duration timeout, boolean server) {
    Objects.requireNonNull(host, "host");
    if (port < 0 || port > 65535 || (!server && port == 0)) {
      throw new IllegalArgumentException(
          "port " + port + " (a client needs the server's port, 1-65535)");
    }
    if (worldSize < 1) {
      throw new IllegalArgumentException("world size " + worldSize + " < 1");
    }
    NativeCollectives.load();
    return new Store(C10d.storeCreate(host, port, worldSize, server, millis(timeout)), host);
  }

  /** The port the server listens on (the chosen one when created with port 0). */
  public int port() {
    return port;
  }

  public String host() {
    return host;
  }

  public void set(String key, byte[] value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    handle.run(p -> C10d.storeSet(p, key, value));
  }

  /**
   * The value of {@code key}, waiting for it up to the store's timeout.
   *
   * @throws CollectiveException naming the key when it is not set within the timeout
   */
  public byte[] get(String key) {
    Objects.requireNonNull(key, "key");
    return handle.apply(p -> C10d.storeGet(p, key));
  }

  /** Adds {@code delta} to the integer at {@code key} (0 when absent) and returns the new value. */
  public long add(String key, long delta) {
    Objects.requireNonNull(key, "key");
    return handle.apply(p -> C10d.storeAdd(p, key, delta));
  }

  <T> T withPointer(LongFunction<T> operation) {
    return handle.apply(operation);
  }

  @Override
  public void close() {
    handle.close();
  }

  @Override
  public String toString() {
    return "Store[" + host + ":" + port + "]";
  }

  static long millis(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    return timeout.toMillis();
  }
}
