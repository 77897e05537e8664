package dev.keel.service.api;

import dev.keel.service.security.ApiAudit;
import dev.keel.service.security.Caller;
import dev.keel.service.security.Permissions;
import dev.keel.service.security.Role;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who may do what: every request but the health probes and the dashboard's page and files (which
 * carry no data) needs a bearer token of the API when it has any (401, a JSON message and a {@code
 * WWW-Authenticate} header otherwise), and the role {@link Permissions} names for it (403 naming
 * the caller, its role and the role needed). Every write is recorded with its caller in the audit
 * table ({@link ApiAudit}), refused ones included.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
public class ApiTokenFilter {
  /**
   * The request attribute holding its {@link Caller}, for controllers that record who did
   * something.
   */
  public static final String CALLER = "keel.caller";

  private static final String AUDITED = "keel.audited";

  /** The experiment, pipeline or model version a write acts on, from its path. */
  private static final Pattern TARGET =
      Pattern.compile(
          "/api/v1/(?:experiments|pipelines)/([^/]+)(?:/.*)?|/api/v1/models/([^/]+/[^/]+)/.*");

  private final ApiToken token;
  private final ApiAudit audit;

  @Inject
  public ApiTokenFilter(ApiToken token, ApiAudit audit) {
    this.token = token;
    this.audit = audit;
  }

  @RequestFilter
  @Nullable
  public MutableHttpResponse<?> check(HttpRequest<?> request) {
    String path = request.getPath();
    if (isOpen(path)) {
      return null;
    }
    String authorization = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
    Caller caller;
    try {
      caller = token.caller(authorization).orElse(null);
    } catch (IllegalStateException invalidTokensFile) {
      return HttpResponse.status(HttpStatus.SERVICE_UNAVAILABLE)
          .body(
              Map.of(
                  "message",
                  "no token is accepted until the server's tokens file is mended: "
                      + invalidTokensFile.getMessage()));
    }
    if (caller == null) {
      String message =
          authorization == null
              ? "this API requires a bearer token: send the header 'Authorization: Bearer <token>' (the server's "
                  + ApiToken.ENV
                  + " or a token of its tokens file)"
              : "the bearer token is not this API's";
      return HttpResponse.unauthorized()
          .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"keel\"")
          .body(Map.of("message", message));
    }
    String method = request.getMethodName();
    Role needed = Permissions.needed(method, path);
    if (!caller.role().allows(needed)) {
      if (!Permissions.reads(method)) {
        audit.record(
            caller, method + " " + path, target(path, null), HttpStatus.FORBIDDEN.getCode());
        request.setAttribute(AUDITED, true);
      }
      return HttpResponse.status(HttpStatus.FORBIDDEN)
          .body(
              Map.of(
                  "message",
                  caller.name()
                      + " is "
                      + article(caller.role())
                      + " "
                      + caller.role().label()
                      + ": "
                      + method
                      + " "
                      + path
                      + " needs the role "
                      + needed.label()));
    }
    request.setAttribute(CALLER, caller);
    return null;
  }

  /**
   * Records a write once it is answered: who, what, on what (an id the answer names, else the
   * path's), status.
   */
  @ResponseFilter
  public void audit(HttpRequest<?> request, MutableHttpResponse<?> response) {
    String method = request.getMethodName();
    if (Permissions.reads(method)
        || request.getAttribute(AUDITED).isPresent()
        || !request.getPath().startsWith("/api/")) {
      return;
    }
    request
        .getAttribute(CALLER, Caller.class)
        .ifPresent(
            caller ->
                audit.record(
                    caller,
                    method + " " + request.getPath(),
                    target(request.getPath(), response.getBody().orElse(null)),
                    response.getStatus().getCode()));
  }

  private static String target(String path, @Nullable Object body) {
    if (body instanceof Map<?, ?> answer) {
      for (String key : new String[] {"experiment_id", "pipeline_id"}) {
        if (answer.get(key) instanceof String id) {
          return id;
        }
      }
    }
    Matcher m = TARGET.matcher(path);
    if (m.matches()) {
      String id = m.group(1) != null ? m.group(1) : m.group(2);
      return id.equals("preview") ? null : id;
    }
    return null;
  }

  private static String article(Role role) {
    return role == Role.ADMIN ? "an" : "a";
  }

  private static boolean isOpen(String path) {
    return path.equals("/")
        || path.startsWith("/dashboard/")
        || path.equals("/health")
        || path.startsWith("/health/");
  }
}
