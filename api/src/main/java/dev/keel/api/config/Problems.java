package dev.keel.api.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Collects problems while walking a config; paths compose with {@link #at}. Keeps the first {@value
 * #MAX_LISTED}: a 1 MiB config of unknown fields would otherwise make an answer of tens of MB.
 */
final class Problems {
  static final int MAX_LISTED = 100;

  private final List<ConfigProblem> list = new ArrayList<>();
  private final Set<String> dropped = new HashSet<>();
  private int count;

  void add(String path, String message) {
    if (count++ < MAX_LISTED) {
      list.add(new ConfigProblem(path, message));
    }
  }

  /** A problem whose value was taken out of the tree, which then parses without it. */
  void addDropped(String path, String message) {
    dropped.add(path);
    add(path, message);
  }

  /** Whether every problem so far was a dropped value: the rest of the tree can still be read. */
  boolean onlyDropped() {
    return count == dropped.size();
  }

  /**
   * Adds the semantic problems that are not about a dropped value: its field or the object holding
   * it would only be reported as missing something.
   */
  void addAllBut(List<ConfigProblem> semantic) {
    semantic.stream()
        .filter(
            p ->
                dropped.stream().noneMatch(d -> d.equals(p.path()) || d.startsWith(p.path() + ".")))
        .forEach(p -> add(p.path(), p.message()));
  }

  boolean isEmpty() {
    return count == 0;
  }

  /** Problems found so far, listed or not. */
  int count() {
    return count;
  }

  /** The first {@value #MAX_LISTED} problems, then one saying how many more there were. */
  List<ConfigProblem> list() {
    if (count <= MAX_LISTED) {
      return list;
    }
    List<ConfigProblem> out = new ArrayList<>(list);
    out.add(
        new ConfigProblem(
            "",
            "and "
                + (count - MAX_LISTED)
                + " more problems (the first "
                + MAX_LISTED
                + " are listed)"));
    return out;
  }

  static String at(String parent, String field) {
    return parent.isEmpty() ? field : parent + "." + field;
  }
}
