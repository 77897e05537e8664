package dev.keel.gpu.gang;

import dev.keel.activities.KeelFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * What every rank of a gang must agree on to train one model together (model, hyperparameters, data
 * version, parameter count, ...), as ordered {@code name=value} lines, so that a mismatch names the
 * field and both values instead of a hash.
 */
public final class Fingerprint {
  private final Map<String, String> fields;

  private Fingerprint(Map<String, String> fields) {
    this.fields = fields;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Reads {@link #text()}. */
  public static Fingerprint parse(String text) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        fields.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return new Fingerprint(fields);
  }

  public String text() {
    StringBuilder b = new StringBuilder();
    fields.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
    return b.toString();
  }

  /**
   * @throws KeelFailure of type {@code GangMismatch} (non-retryable) naming every field that
   *     differs
   */
  public void requireSame(Fingerprint other, String who) {
    List<String> differences = differences(other);
    if (!differences.isEmpty()) {
      throw GangMember.mismatch(
          "this rank and "
              + who
              + " would train different things: "
              + String.join("; ", differences));
    }
  }

  List<String> differences(Fingerprint other) {
    List<String> out = new ArrayList<>();
    TreeSet<String> names = new TreeSet<>(fields.keySet());
    names.addAll(other.fields.keySet());
    for (String name : names) {
      String mine = fields.get(name);
      String theirs = other.fields.get(name);
      if (!Objects.equals(mine, theirs)) {
        out.add(name + " " + show(mine) + " here, " + show(theirs) + " there");
      }
    }
    return out;
  }

  private static String show(String v) {
    return v == null ? "(absent)" : "'" + v + "'";
  }

  /** Fields in the order they are added. */
  public static final class Builder {
    private final Map<String, String> fields = new LinkedHashMap<>();

    public Builder set(String name, Object value) {
      if (name.indexOf('=') >= 0 || name.indexOf('\n') >= 0) {
        throw new IllegalArgumentException(
            "fingerprint field names hold no '=' or newline: " + name);
      }
      fields.put(name, String.valueOf(value).replace('\n', ' '));
      return this;
    }

    public Fingerprint build() {
      return new Fingerprint(new LinkedHashMap<>(fields));
    }
  }
}
