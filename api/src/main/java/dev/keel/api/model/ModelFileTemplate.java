package dev.keel.api.model;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code model.torchscript} location whose {@code {name}} placeholders are filled with a trial's
 * hyperparameters, so that one search trains several exported variants ({@code
 * models/cnn-w{width}.pt}). Filled values may not leave the template's directory: they are single
 * path segments of letters, digits, {@code _ . + -}.
 */
public final class ModelFileTemplate {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z_][A-Za-z0-9_]*)}");
  private static final Pattern SAFE_VALUE = Pattern.compile("[A-Za-z0-9_.+-]+");

  private final String template;

  private ModelFileTemplate(String template) {
    this.template = template;
  }

  /**
   * @throws IllegalArgumentException naming the first brace that opens no placeholder
   */
  public static ModelFileTemplate of(String template) {
    problem(template)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException(p);
            });
    return new ModelFileTemplate(template.strip());
  }

  /** What is wrong with the template's braces, if anything. */
  public static Optional<String> problem(String template) {
    String rest = PLACEHOLDER.matcher(template).replaceAll("");
    int brace = Math.max(rest.indexOf('{'), rest.indexOf('}'));
    return brace < 0
        ? Optional.empty()
        : Optional.of(
            "'"
                + template
                + "' has a brace that is not a {name} placeholder (a name is letters, digits and '_')");
  }

  /** The hyperparameter names the template uses, in order of first use. */
  public Set<String> placeholders() {
    Set<String> names = new LinkedHashSet<>();
    Matcher m = PLACEHOLDER.matcher(template);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  public boolean isTemplate() {
    return !placeholders().isEmpty();
  }

  /**
   * The location with every placeholder replaced by its value's text (integers without a decimal
   * point).
   *
   * @throws IllegalArgumentException when a placeholder has no value or a value is not a safe path
   *     segment
   */
  public String fill(Map<String, ?> values) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = m.group(1);
      Object value = values.get(name);
      if (value == null) {
        throw new IllegalArgumentException(
            "'" + template + "' names {" + name + "}, which no hyperparameter sets");
      }
      String text = text(value);
      if (!SAFE_VALUE.matcher(text).matches() || text.equals(".") || text.equals("..")) {
        throw new IllegalArgumentException(
            "hyperparameter "
                + name
                + " = '"
                + text
                + "' cannot fill {"
                + name
                + "} in '"
                + template
                + "' (allowed: letters, digits and _ . + -, not '.' or '..')");
      }
      m.appendReplacement(out, Matcher.quoteReplacement(text));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** How a value reads in a file name: {@code 64}, not {@code 64.0}. */
  public static String text(Object value) {
    if (value instanceof Double d && d == Math.rint(d) && !d.isInfinite()) {
      return Long.toString(d.longValue());
    }
    if (value instanceof com.google.protobuf.Value v) {
      return switch (v.getKindCase()) {
        case NUMBER_VALUE -> text(v.getNumberValue());
        case STRING_VALUE -> v.getStringValue();
        case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
        default -> v.toString();
      };
    }
    return String.valueOf(value);
  }

  @Override
  public String toString() {
    return template;
  }
}
