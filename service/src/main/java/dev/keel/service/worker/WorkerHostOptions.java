package dev.keel.service.worker;

import dev.keel.storage.StorageRoot;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** What one worker process serves. Immutable; build with {@link #newBuilder()}. */
public final class WorkerHostOptions {
  /** The roles a worker process can take; a dev stack takes all of them. */
  public enum Role {
    CONTROL,
    ETL,
    TRAIN,
    INFER
  }

  private final String temporalAddress;
  private final String namespace;
  private final StorageRoot storageRoot;
  private final Set<Role> roles;
  private final String trainPool;
  private final int trainThreads;
  private final boolean devServer;
  private final String identity;

  private WorkerHostOptions(Builder b) {
    this.temporalAddress = Objects.requireNonNull(b.temporalAddress, "temporalAddress");
    this.namespace = b.namespace;
    this.storageRoot = Objects.requireNonNull(b.storageRoot, "storageRoot");
    this.roles = Set.copyOf(b.roles);
    this.trainPool = b.trainPool;
    this.trainThreads = b.trainThreads;
    this.devServer = b.devServer;
    this.identity = b.identity;
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  public String temporalAddress() {
    return temporalAddress;
  }

  public String namespace() {
    return namespace;
  }

  public StorageRoot storageRoot() {
    return storageRoot;
  }

  public Set<Role> roles() {
    return roles;
  }

  public String trainPool() {
    return trainPool;
  }

  public int trainThreads() {
    return trainThreads;
  }

  /** True against Temporal's Java test server, which never expires a dead worker's sticky queue. */
  public boolean devServer() {
    return devServer;
  }

  /** The Temporal worker identity; empty: the SDK's {@code <pid>@<host>}. */
  public Optional<String> identity() {
    return Optional.ofNullable(identity);
  }

  /** Builder: {@code set*} for what is required, {@code opt*} for what has a default. */
  public static final class Builder {
    private String temporalAddress;
    private String namespace = "default";
    private StorageRoot storageRoot;
    private Set<Role> roles = EnumSet.allOf(Role.class);
    private String trainPool = "cpu";
    private int trainThreads = 1;
    private boolean devServer;
    private String identity;

    public Builder setTemporalAddress(String address) {
      this.temporalAddress = address;
      return this;
    }

    public Builder setStorageRoot(StorageRoot root) {
      this.storageRoot = root;
      return this;
    }

    public Builder optNamespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    public Builder optRoles(Set<Role> roles) {
      this.roles = EnumSet.copyOf(roles);
      return this;
    }

    public Builder optTrainPool(String pool) {
      this.trainPool = pool;
      return this;
    }

    public Builder optTrainThreads(int threads) {
      this.trainThreads = threads;
      return this;
    }

    public Builder optDevServer(boolean devServer) {
      this.devServer = devServer;
      return this;
    }

    public Builder optIdentity(String identity) {
      this.identity = identity;
      return this;
    }

    public WorkerHostOptions build() {
      return new WorkerHostOptions(this);
    }
  }
}
