package dev.keel.service.security;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The role each request needs, kept as data: reads need {@link Role#VIEWER} (the audit log {@link
 * Role#ADMIN}); submissions, previews and control signals {@link Role#EDITOR}; promotions, and any
 * write not listed here, {@link Role#ADMIN}.
 */
public final class Permissions {
  /** One rule: requests of {@code method} whose path matches {@code path} need {@code role}. */
  public record Rule(String method, Pattern path, Role role) {
    static Rule of(String method, String path, Role role) {
      return new Rule(method, Pattern.compile(path), role);
    }
  }

  private static final String ID = "[^/]+";

  public static final List<Rule> RULES =
      List.of(
          Rule.of("GET", "/api/v1/audit", Role.ADMIN),
          Rule.of("POST", "/api/v1/experiments", Role.EDITOR),
          Rule.of("POST", "/api/v1/experiments/preview", Role.EDITOR),
          Rule.of("POST", "/api/v1/experiments/" + ID + "/(pause|activate|kill)", Role.EDITOR),
          Rule.of("POST", "/api/v1/experiments/" + ID + "/trials/" + ID + "/kill", Role.EDITOR),
          Rule.of("POST", "/api/v1/pipelines", Role.EDITOR),
          Rule.of("POST", "/api/v1/models/" + ID + "/" + ID + "/promote", Role.ADMIN));

  private Permissions() {}

  public static Role needed(String method, String path) {
    for (Rule r : RULES) {
      if ((r.method().equals(method) || (method.equals("HEAD") && r.method().equals("GET")))
          && r.path().matcher(path).matches()) {
        return r.role();
      }
    }
    return reads(method) ? Role.VIEWER : Role.ADMIN;
  }

  public static boolean reads(String method) {
    return method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS");
  }
}
