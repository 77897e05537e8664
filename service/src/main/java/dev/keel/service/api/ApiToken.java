package dev.keel.service.api;

import dev.keel.service.security.Caller;
import dev.keel.service.security.Role;
import dev.keel.service.security.TokensFile;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * The bearer tokens the API requires, if any: one shared token ({@code KEEL_API_TOKEN}, an admin
 * named {@value Caller#SHARED_TOKEN}) and the users of a {@link TokensFile}, each with a name and a
 * role. Compared in constant time ({@link MessageDigest#isEqual}), so the time a wrong token takes
 * to refuse says nothing about how much of it was right.
 */
public final class ApiToken {
  /**
   * Environment variable holding the token of {@code keel serve} (and of clients such as {@code
   * curl}).
   */
  public static final String ENV = "KEEL_API_TOKEN";

  private final Optional<byte[]> token;
  private final Optional<TokensFile> users;

  private ApiToken(Optional<byte[]> token) {
    this(token, Optional.empty());
  }

  private ApiToken(Optional<byte[]> token, Optional<TokensFile> users) {
    this.token = token;
    this.users = users;
  }

  /** This token (if any) and the users of {@code file}. */
  public ApiToken withUsers(TokensFile file) {
    return new ApiToken(token, Optional.of(file));
  }

  /** The token in {@code KEEL_API_TOKEN}, or none when it is unset. */
  public static ApiToken fromEnvironment() {
    String env = System.getenv(ENV);
    return env == null ? none() : of(env);
  }

  public static ApiToken none() {
    return new ApiToken(Optional.empty());
  }

  /**
   * @throws IllegalArgumentException for a blank token or one shorter than 16 characters
   */
  public static ApiToken of(String token) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException(ENV + " is empty");
    }
    if (token.strip().length() < 16) {
      throw new IllegalArgumentException(
          ENV
              + " is "
              + token.strip().length()
              + " characters long; use at least 16 (e.g. openssl rand -hex 32)");
    }
    return new ApiToken(Optional.of(token.strip().getBytes(StandardCharsets.UTF_8)));
  }

  public boolean required() {
    return token.isPresent() || users.isPresent();
  }

  /**
   * Whether an {@code Authorization} header value carries a token of this API ({@code Bearer
   * <token>}).
   */
  public boolean accepts(String authorization) {
    try {
      return caller(authorization).isPresent();
    } catch (IllegalStateException invalidTokensFile) {
      return false;
    }
  }

  /**
   * Who an {@code Authorization} header value ({@code Bearer <token>}) names: {@link
   * Caller#local()} when the API requires no token, else the shared token's admin or a user of the
   * tokens file; empty for no or a wrong token.
   *
   * @throws IllegalStateException when the tokens file changed and is invalid now
   */
  public Optional<Caller> caller(String authorization) {
    if (!required()) {
      return Optional.of(Caller.local());
    }
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    String given = authorization.substring(7).strip();
    boolean shared =
        token.isPresent()
            && MessageDigest.isEqual(token.get(), given.getBytes(StandardCharsets.UTF_8));
    Optional<Caller> user = users.isPresent() ? users.get().caller(given) : Optional.empty();
    return shared ? Optional.of(new Caller(Caller.SHARED_TOKEN, Role.ADMIN)) : user;
  }

  @Override
  public String toString() {
    return "ApiToken["
        + (token.isPresent() ? "set" : "none")
        + users.map(u -> ", users of " + u.path()).orElse("")
        + "]";
  }
}
