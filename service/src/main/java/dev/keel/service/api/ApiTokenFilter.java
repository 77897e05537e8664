package dev.keel.service.api;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import jakarta.inject.Inject;
import java.util.Map;

/**
 * Refuses every request without the API's bearer token (401, a JSON message and a {@code
 * WWW-Authenticate} header) when the server has one, except the health probes and the dashboard's page and
 * files, which carry no data.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
public class ApiTokenFilter {
  private final ApiToken token;

  @Inject
  public ApiTokenFilter(ApiToken token) {
    this.token = token;
  }

  @RequestFilter
  @Nullable
  public MutableHttpResponse<?> check(HttpRequest<?> request) {
    if (!token.required() || isOpen(request.getPath())) {
      return null;
    }
    String authorization = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
    if (token.accepts(authorization)) {
      return null;
    }
    String message = authorization == null
        ? "this API requires a bearer token: send the header 'Authorization: Bearer <token>' (the server's "
            + ApiToken.ENV + ")"
        : "the bearer token is not this API's";
    return HttpResponse.unauthorized().header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"keel\"")
        .body(Map.of("message", message));
  }

  private static boolean isOpen(String path) {
    return path.equals("/") || path.startsWith("/dashboard/") || path.equals("/health") || path.startsWith("/health/");
  }
}
