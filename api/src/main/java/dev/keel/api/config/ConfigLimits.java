package dev.keel.api.config;

/**
 * The most one config may ask for. Each bound is far above what a real experiment uses, and
 * together they bound the work of every request that reads a config (validation, preview,
 * submission): without them one {@code max_trials: 1000000000} held a server thread for minutes.
 * The loaders and validators check them and name the field; the "Limits" section of
 * docs/configuration.md lists them, and a docs test keeps it equal to this class.
 */
public final class ConfigLimits {
  /** {@code searcher.max_trials}. */
  public static final int MAX_TRIALS = 100_000;

  /** Points of a grid search, and {@code count} of any one hyperparameter. */
  public static final int MAX_GRID_POINTS = 100_000;

  /** {@code searcher.max_rungs} (ASHA's rungs, Hyperband's {@code s_max + 1}). */
  public static final int MAX_RUNGS = 20;

  /** {@code searcher.tpe_candidates}: TPE scores this many candidates per new trial. */
  public static final int MAX_TPE_CANDIDATES = 10_000;

  /** PBT's trainings, {@code population_size} times its rounds. */
  public static final long MAX_PBT_TRAININGS = 200_000;

  /** A YAML or JSON config (or request) as text: 1 MiB. */
  public static final int MAX_CONFIG_BYTES = 1 << 20;

  /** How deep objects and lists may nest in a config (Keel's own need about 8 levels). */
  public static final int MAX_NESTING_DEPTH = 32;

  /** YAML aliases ({@code *anchor}) per document; they are never expanded, only counted. */
  public static final int MAX_YAML_ALIASES = 50;

  private ConfigLimits() {}

  /**
   * The problem message for a value above its limit, e.g. {@code must be <= 100000 (Keel's limit),
   * got 1000000000}.
   */
  public static String atMost(long limit, long got) {
    return "must be <= " + limit + " (Keel's limit), got " + got;
  }

  /** {@code 1 MiB} for {@link #MAX_CONFIG_BYTES}. */
  public static String configSize() {
    return (MAX_CONFIG_BYTES >> 20) + " MiB";
  }
}
