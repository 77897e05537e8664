package dev.keel.service.cli;

/** Who runs the CLI, as the records of what it starts or changes name them: {@code cli:<user>}. */
final class CliUser {
  private CliUser() {}

  static String name() {
    String user = System.getProperty("user.name", "");
    return "cli:" + (user.isBlank() ? "unknown" : user);
  }
}
