package dev.keel.service.api;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The dashboard: a page and its script and style, hand-written under {@code keel/dashboard/} on the
 * class path. They hold no data (the script reads the API, with the token the user gives it when
 * the API has one), so they are served without the token.
 */
@Controller
public class DashboardController {
  static final String DIRECTORY = "/keel/dashboard/";
  private static final Pattern ASSET = Pattern.compile("[a-z0-9-]+\\.(js|css|svg)");
  private static final Map<String, String> TYPES =
      Map.of(
          "js",
          "text/javascript; charset=utf-8",
          "css",
          "text/css; charset=utf-8",
          "svg",
          "image/svg+xml");

  @Get(produces = MediaType.TEXT_HTML)
  public HttpResponse<byte[]> index() {
    return HttpResponse.ok(read("index.html")).contentType(MediaType.TEXT_HTML + "; charset=utf-8");
  }

  @Get("/dashboard/{asset}")
  public HttpResponse<?> asset(@PathVariable String asset) {
    if (!ASSET.matcher(asset).matches()
        || DashboardController.class.getResource(DIRECTORY + asset) == null) {
      return HttpResponse.notFound(Map.of("message", "no dashboard file " + asset));
    }
    return HttpResponse.ok(read(asset))
        .contentType(TYPES.get(asset.substring(asset.lastIndexOf('.') + 1)));
  }

  private static byte[] read(String name) {
    try (InputStream in = DashboardController.class.getResourceAsStream(DIRECTORY + name)) {
      if (in == null) {
        throw new IllegalStateException(DIRECTORY + name + " is missing from the class path");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
