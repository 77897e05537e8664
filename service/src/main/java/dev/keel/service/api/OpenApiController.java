package dev.keel.service.api;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The API's OpenAPI 3.0 document ({@code keel/openapi.yaml}, written by hand next to the
 * controllers; a test checks that it lists exactly their routes).
 */
@Controller("/openapi.yaml")
public class OpenApiController {
  static final String RESOURCE = "/keel/openapi.yaml";
  private static final String YAML = "application/yaml";

  @Get(produces = YAML)
  public HttpResponse<String> document() {
    return HttpResponse.ok(text()).contentType(YAML);
  }

  static String text() {
    try (InputStream in = OpenApiController.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
