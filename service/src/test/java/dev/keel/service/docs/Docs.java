package dev.keel.service.docs;

import java.nio.file.Path;

/** Where the repository's documentation is. */
final class Docs {
  private Docs() {}

  /** The repository root (surefire sets {@code keel.home}; from an IDE, the module's parent). */
  static Path root() {
    return Path.of(System.getProperty("keel.home", "..")).toAbsolutePath().normalize();
  }

  static Path page(String relative) {
    return root().resolve(relative);
  }
}
