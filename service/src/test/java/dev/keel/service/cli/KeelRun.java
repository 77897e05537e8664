package dev.keel.service.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/**
 * Runs one {@code keel} command in this JVM, as a user's shell would, and keeps what it printed.
 */
public final class KeelRun {
  private KeelRun() {}

  /** The exit code, stdout and stderr of {@code keel ARGS}. */
  public record Result(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\nstdout:\n" + out + "stderr:\n" + err;
    }
  }

  public static Result keel(String... args) {
    PrintStream out = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      int code = KeelCli.run(new PrintWriter(err, true), args);
      return new Result(code, buf.toString(StandardCharsets.UTF_8), err.toString());
    } finally {
      System.setOut(out);
    }
  }
}
