package dev.keel.search;

import dev.keel.search.asha.AdaptiveAshaSpec;
import dev.keel.search.hyperband.HyperbandSpec;
import dev.keel.search.method.GridSpec;
import dev.keel.search.method.RandomSpec;
import dev.keel.search.method.SingleSpec;
import dev.keel.search.pbt.PbtSpec;
import dev.keel.search.spec.SearchMethodSpec;
import dev.keel.search.tpe.TpeSpec;
import java.util.List;
import java.util.Optional;

/**
 * Every search method a config can name, in the order error messages list them. A new searcher is
 * one line here.
 */
public final class SearchMethods {
  private static final List<SearchMethodSpec> ALL =
      List.of(
          new SingleSpec(),
          new GridSpec(),
          new RandomSpec(),
          new AdaptiveAshaSpec(),
          new HyperbandSpec(),
          new PbtSpec(),
          new TpeSpec());

  private SearchMethods() {}

  public static List<SearchMethodSpec> all() {
    return ALL;
  }

  public static Optional<SearchMethodSpec> byName(String name) {
    return ALL.stream().filter(m -> m.name().equals(name)).findFirst();
  }

  public static List<String> names() {
    return ALL.stream().map(SearchMethodSpec::name).toList();
  }
}
