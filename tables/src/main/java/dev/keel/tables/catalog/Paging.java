package dev.keel.tables.catalog;

import java.util.List;

/**
 * The paging rules every Keel list shares: an {@code offset} from 0, a {@code limit} of 1..1000.
 */
public final class Paging {
  public static final int MAX_LIMIT = 1000;

  private Paging() {}

  /**
   * @throws IllegalArgumentException naming the parameter that is out of range
   */
  public static void check(int offset, int limit) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset: must be >= 0, got " + offset);
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "limit: must be between 1 and " + MAX_LIMIT + ", got " + limit);
    }
  }

  /** The items from {@code offset}, at most {@code limit} of them (none past the end). */
  public static <T> List<T> slice(List<T> items, int offset, int limit) {
    check(offset, limit);
    int from = Math.min(offset, items.size());
    return items.subList(from, Math.min(items.size(), from + limit));
  }
}
