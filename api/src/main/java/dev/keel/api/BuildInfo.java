package dev.keel.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** What the build recorded about itself: the git commit of the code, for model lineage. */
public final class BuildInfo {
  private static final String RESOURCE = "/dev/keel/api/build.properties";
  private static final String UNKNOWN = "unknown";
  private static final String COMMIT = load().getProperty("git.commit", UNKNOWN).strip();

  private BuildInfo() {}

  /**
   * The commit the classes were built from, with {@code -dirty} when the work tree had uncommitted
   * changes; {@code unknown} when the build ran outside a git checkout.
   */
  public static String commit() {
    return COMMIT.isEmpty() ? UNKNOWN : COMMIT;
  }

  private static Properties load() {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
    return p;
  }
}
