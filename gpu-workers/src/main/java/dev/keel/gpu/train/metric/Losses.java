package dev.keel.gpu.train.metric;

import java.util.List;
import java.util.Optional;

/** Every loss Keel trains with, listed once. */
public final class Losses {
  public static final Loss SOFTMAX_CROSS_ENTROPY = new SoftmaxCrossEntropy();

  /** What a classification model trains against when nothing else is asked for. */
  public static final Loss DEFAULT = SOFTMAX_CROSS_ENTROPY;

  private static final List<Loss> ALL = List.of(SOFTMAX_CROSS_ENTROPY);

  private Losses() {}

  public static List<Loss> all() {
    return ALL;
  }

  public static Optional<Loss> of(String name) {
    return ALL.stream().filter(l -> l.name().equals(name)).findFirst();
  }
}
