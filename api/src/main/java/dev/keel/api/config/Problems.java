package dev.keel.api.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects problems while walking a config; paths compose with {@link #at}. Keeps the first {@value
 * #MAX_LISTED}: a 1 MiB config of unknown fields would otherwise make an answer of tens of MB.
 */
final class Problems {
  static final int MAX_LISTED = 100;

  private final List<ConfigProblem> list = new ArrayList<>();
  private int count;

  void add(String path, String message) {
    if (count++ < MAX_LISTED) {
      list.add(new ConfigProblem(path, message));
    }
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
