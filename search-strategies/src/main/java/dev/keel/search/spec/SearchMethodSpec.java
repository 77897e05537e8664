package dev.keel.search.spec;

/**
 * One search method: its name in {@code searcher.name}, its rules and how it is built. Rules report
 * through a {@link SearcherCheck}; {@link #build} is only called for a config that passed them.
 */
public interface SearchMethodSpec {

  /** The name a config uses. */
  String name();

  /**
   * Range checks of the {@code searcher} fields this method owns. They run for every config,
   * whichever method it names: a bad value is a mistake even while another searcher is chosen, and
   * would otherwise surface only on the day the user switches to this one.
   */
  default void checkSettings(SearcherCheck check) {}

  /**
   * Rules that hold when the config names this method: what it requires and what it needs of the
   * hyperparameters.
   */
  void validate(SearcherCheck check);

  /** The method of a validated config, with the number of trials it may train at once. */
  BuiltMethod build(SearchSetup setup);

  /**
   * The method a preview runs: it must make the same decisions as {@link #build}'s on the same
   * results. A preview feeds random metrics and trains every unit in the same time, so which
   * hyperparameters a trial gets never changes its plan: a method that fits a model to pick them
   * (TPE) may draw from the prior here instead.
   */
  default BuiltMethod buildForPreview(SearchSetup setup) {
    return build(setup);
  }
}
