package dev.keel.service.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * The bearer token the API requires, if any. Compared in constant time ({@link MessageDigest#isEqual}),
 * so the time a wrong token takes to refuse says nothing about how much of it was right.
 */
public final class ApiToken {
  /** Environment variable holding the token of {@code keel serve} (and of clients such as {@code curl}). */
  public static final String ENV = "KEEL_API_TOKEN";

  private final Optional<byte[]> token;

  private ApiToken(Optional<byte[]> token) {
    this.token = token;
  }

  /** The token in {@code KEEL_API_TOKEN}, or none when it is unset. */
  public static ApiToken fromEnvironment() {
    String env = System.getenv(ENV);
    return env == null ? none() : of(env);
  }

  public static ApiToken none() {
    return new ApiToken(Optional.empty());
  }

  /** @throws IllegalArgumentException for a blank token or one shorter than 16 characters */
  public static ApiToken of(String token) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException(ENV + " is empty");
    }
    if (token.strip().length() < 16) {
      throw new IllegalArgumentException(ENV + " is " + token.strip().length()
          + " characters long; use at least 16 (e.g. openssl rand -hex 32)");
    }
    return new ApiToken(Optional.of(token.strip().getBytes(StandardCharsets.UTF_8)));
  }

  public boolean required() {
    return token.isPresent();
  }

  /** Whether an {@code Authorization} header value carries the token ({@code Bearer <token>}). */
  public boolean accepts(String authorization) {
    if (token.isEmpty()) {
      return true;
    }
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] given = authorization.substring(7).strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(token.get(), given);
  }

  @Override
  public String toString() {
    return token.isPresent() ? "ApiToken[set]" : "ApiToken[none]";
  }
}
