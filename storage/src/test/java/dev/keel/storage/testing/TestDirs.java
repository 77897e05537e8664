package dev.keel.storage.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Temp directories under {@code target/test-tmp} (Surefire sets {@code keel.test.tmp}). */
public final class TestDirs {
  private TestDirs() {}

  public static Path create(String prefix) throws IOException {
    Path base = Path.of(System.getProperty("keel.test.tmp", System.getProperty("java.io.tmpdir")));
    Files.createDirectories(base);
    return Files.createTempDirectory(base, prefix);
  }
}
