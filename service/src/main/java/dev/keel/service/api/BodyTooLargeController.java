package dev.keel.service.api;

import dev.keel.api.config.ConfigLimits;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.exceptions.ContentLengthExceededException;
import java.util.Map;

/**
 * 413 for a request body over {@code micronaut.server.max-request-size} ({@link ApiServer} sets it
 * to Keel's limit for a config), in the API's words: the limit, not the server's internals. No
 * routes of its own.
 */
@Controller
public class BodyTooLargeController {

  @Error(global = true, exception = ContentLengthExceededException.class)
  public HttpResponse<Map<String, String>> tooLarge() {
    return HttpResponse.<Map<String, String>>status(HttpStatus.REQUEST_ENTITY_TOO_LARGE)
        .body(
            Map.of(
                "message",
                "the request body is larger than "
                    + ConfigLimits.configSize()
                    + " ("
                    + ConfigLimits.MAX_CONFIG_BYTES
                    + " bytes), Keel's limit for a config"));
  }
}
