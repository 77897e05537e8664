package dev.keel.service.security;

import java.util.Locale;

/** What a token may do through the API; each role may do what the ones before it may. */
public enum Role {
  /** Reads: lists, views, the dashboard's data, metrics. */
  VIEWER,
  /** Submits experiments and pipelines, runs previews, pauses, activates and kills. */
  EDITOR,
  /** Promotes models (and manages schedules and pools, which only the CLI does today). */
  ADMIN;

  public boolean allows(Role needed) {
    return compareTo(needed) >= 0;
  }

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * @throws IllegalArgumentException naming the roles there are
   */
  public static Role parse(String text) {
    for (Role r : values()) {
      if (r.label().equals(text == null ? "" : text.strip().toLowerCase(Locale.ROOT))) {
        return r;
      }
    }
    throw new IllegalArgumentException("role '" + text + "' is not one of viewer|editor|admin");
  }
}
