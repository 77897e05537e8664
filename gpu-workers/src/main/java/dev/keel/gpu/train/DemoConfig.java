package dev.keel.gpu.train;

/**
 * The tuned demo configuration for 2 CPU cores: {@code fashion_cnn} with its default
 * hyperparameters for {@link #BATCHES} batches on {@link #THREADS} intra-op thread(s).
 */
public final class DemoConfig {
  public static final long BATCHES = 3000;
  public static final int THREADS = 2;

  private DemoConfig() {}
}
