package dev.keel.api.config;

import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code source.encoding}: a Java charset name or alias ({@code ISO-8859-1}, {@code latin1}, {@code
 * windows-1252}, {@code utf-16}, ...), plus the spellings Python and pandas users write that Java
 * lacks ({@code latin-1}, {@code utf-8-sig}). Empty means UTF-8. The validator and the ingest
 * resolve it here, so they accept the same names.
 */
public final class SourceEncoding {
  public static final String FIELD = "source.encoding";

  /** Python's names that Java does not know. */
  private static final Map<String, Charset> ALIASES =
      Map.of(
          "latin-1", StandardCharsets.ISO_8859_1,
          "utf-8-sig", StandardCharsets.UTF_8,
          "utf8-sig", StandardCharsets.UTF_8);

  private SourceEncoding() {}

  /**
   * The charset {@code name} names; UTF-8 when empty; empty when no charset of this JVM has that
   * name.
   */
  public static Optional<Charset> charset(String name) {
    String n = name == null ? "" : name.strip();
    if (n.isEmpty()) {
      return Optional.of(StandardCharsets.UTF_8);
    }
    Charset alias = ALIASES.get(n.toLowerCase(Locale.ROOT));
    if (alias != null) {
      return Optional.of(alias);
    }
    try {
      return Optional.of(Charset.forName(n));
    } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
      return Optional.empty();
    }
  }

  /** The problem of an unknown name, for {@value #FIELD}. */
  public static String unknown(String name) {
    return "unknown encoding '" + name + "' (e.g. utf-8, latin-1, windows-1252, utf-16)";
  }
}
