package dev.keel.search;

import dev.keel.api.config.ConfigLimits;
import dev.keel.api.config.ConfigProblem;
import dev.keel.api.config.SearcherRules;
import dev.keel.api.v1.ExperimentConfig;
import dev.keel.api.v1.SearcherConfig;
import dev.keel.search.spec.SearchMethodSpec;
import dev.keel.search.spec.SearcherCheck;
import java.util.List;
import java.util.Optional;

/**
 * The searcher's rules as the api validators ask for them: the fields every method reads ({@code
 * name}, {@code max_trials}, {@code max_concurrent_trials}), the named method's own rules, and
 * every method's setting checks. A name that matches no method is one problem and nothing more:
 * guessing which method was meant would only add problems about fields the user never chose.
 */
final class SearcherSection implements SearcherRules {
  static final SearcherSection RULES = new SearcherSection();

  private SearcherSection() {}

  @Override
  public List<ConfigProblem> check(ExperimentConfig config, boolean hyperparametersWellFormed) {
    SearcherCheck check = new SearcherCheck(config, hyperparametersWellFormed);
    SearcherConfig s = config.getSearcher();
    String expected = " (expected " + String.join("|", SearchMethods.names()) + ")";
    Optional<SearchMethodSpec> method = SearchMethods.byName(s.getName());
    if (s.getName().isEmpty()) {
      check.field("name", "required" + expected);
    } else if (method.isEmpty()) {
      check.field("name", "unknown searcher '" + s.getName() + "'" + expected);
    }
    if (s.hasMaxTrials() && s.getMaxTrials() <= 0) {
      check.field("max_trials", "must be > 0, got " + s.getMaxTrials());
    } else if (s.getMaxTrials() > ConfigLimits.MAX_TRIALS) {
      check.field("max_trials", ConfigLimits.atMost(ConfigLimits.MAX_TRIALS, s.getMaxTrials()));
    }
    check.atLeast(
        "max_concurrent_trials", s.hasMaxConcurrentTrials(), s.getMaxConcurrentTrials(), 0);
    method.ifPresent(m -> m.validate(check));
    SearchMethods.all().forEach(m -> m.checkSettings(check));
    return check.problems();
  }
}
