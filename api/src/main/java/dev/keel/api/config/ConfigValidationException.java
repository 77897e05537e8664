package dev.keel.api.config;

import java.util.List;
import java.util.stream.Collectors;

/** Every problem found in a config, one per line, each with its field path. */
public final class ConfigValidationException extends IllegalArgumentException {
  private final transient List<ConfigProblem> problems;
  private final String source;

  public ConfigValidationException(String source, List<ConfigProblem> problems) {
    super(format(source, problems));
    this.source = source;
    this.problems = List.copyOf(problems);
  }

  public List<ConfigProblem> problems() {
    return problems;
  }

  public String source() {
    return source;
  }

  private static String format(String source, List<ConfigProblem> problems) {
    String head =
        "invalid "
            + source
            + " ("
            + problems.size()
            + " problem"
            + (problems.size() == 1 ? "" : "s")
            + "):";
    return head + problems.stream().map(p -> "\n  " + p).collect(Collectors.joining());
  }
}
