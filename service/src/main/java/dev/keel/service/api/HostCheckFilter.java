package dev.keel.service.api;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.http.filter.ServerFilterPhase;
import jakarta.inject.Inject;
import java.util.Map;

/**
 * Applies {@link HostCheck} to every request (403 and a one-line JSON message), before any other
 * filter, Micronaut's CORS filter included, so a refused request reaches nothing.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
public class HostCheckFilter implements Ordered {
  private final HostCheck check;

  @Inject
  public HostCheckFilter(HostCheck check) {
    this.check = check;
  }

  @RequestFilter
  @Nullable
  public MutableHttpResponse<?> check(HttpRequest<?> request) {
    if (!check.enabled()) {
      return null;
    }
    return check
        .refusal(
            request.getHeaders().get(HttpHeaders.HOST),
            request.getHeaders().get(HttpHeaders.ORIGIN),
            request.getServerAddress().getPort(),
            request.isSecure())
        .<MutableHttpResponse<?>>map(
            why -> HttpResponse.status(HttpStatus.FORBIDDEN).body(Map.of("message", why)))
        .orElse(null);
  }

  @Override
  public int getOrder() {
    return ServerFilterPhase.FIRST.order();
  }
}
