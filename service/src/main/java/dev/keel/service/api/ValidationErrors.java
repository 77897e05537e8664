package dev.keel.service.api;

import dev.keel.api.config.ConfigValidationException;
import java.util.LinkedHashMap;
import java.util.Map;

/** The 400 body: the summary line and one {field, message} per problem. */
final class ValidationErrors {
  private ValidationErrors() {}

  static Map<String, Object> body(ConfigValidationException e) {
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("message", e.getMessage().lines().findFirst().orElse("invalid request"));
    error.put(
        "errors",
        e.problems().stream().map(p -> Map.of("field", p.path(), "message", p.message())).toList());
    return error;
  }
}
