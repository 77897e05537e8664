package dev.keel.search;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts validations of the configs named {@code name}, through {@link ExperimentConfigs}'
 * package-private hook.
 */
public final class ValidationProbe implements AutoCloseable {
  private final AtomicInteger count = new AtomicInteger();

  private ValidationProbe(String name) {
    ExperimentConfigs.onValidate =
        c -> {
          if (name.equals(c.getName())) {
            count.incrementAndGet();
          }
        };
  }

  public static ValidationProbe countingConfigsNamed(String name) {
    return new ValidationProbe(name);
  }

  public int count() {
    return count.get();
  }

  @Override
  public void close() {
    ExperimentConfigs.onValidate = c -> {};
  }
}
