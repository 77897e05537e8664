package dev.keel.service.security;

/**
 * Who made a request, as the token named it: what the audit table and the records of a run show.
 *
 * @param name the token's name in the tokens file, {@value #SHARED_TOKEN} for the shared {@code
 *     KEEL_API_TOKEN}, {@value #LOCAL} for a loopback server without tokens
 */
public record Caller(String name, Role role) {
  public static final String SHARED_TOKEN = "api-token";
  public static final String LOCAL = "local";

  /** Whoever reaches a loopback server that has no token: the machine's own user (keel dev). */
  public static Caller local() {
    return new Caller(LOCAL, Role.ADMIN);
  }
}
