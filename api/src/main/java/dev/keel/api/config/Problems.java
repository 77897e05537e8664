package dev.keel.api.config;

import java.util.ArrayList;
import java.util.List;

/** Collects problems while walking a config; paths compose with {@link #at}. */
final class Problems {
  private final List<ConfigProblem> list = new ArrayList<>();

  void add(String path, String message) {
    list.add(new ConfigProblem(path, message));
  }

  boolean isEmpty() {
    return list.isEmpty();
  }

  List<ConfigProblem> list() {
    return list;
  }

  static String at(String parent, String field) {
    return parent.isEmpty() ? field : parent + "." + field;
  }
}
