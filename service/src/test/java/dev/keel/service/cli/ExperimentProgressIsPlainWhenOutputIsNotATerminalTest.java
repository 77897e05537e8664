package dev.keel.service.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/**
 * A followed experiment redraws one line only on a terminal; redirected to a file or a pipe it
 * prints plain lines. The test JVM's output is a pipe to Maven. On Java 22 to 24 {@code
 * System.console()} is not null there either, so a null check alone took the pipe for a terminal
 * (Java 17 and 25 answer null: there the test passes with the null check alone).
 */
class ExperimentProgressIsPlainWhenOutputIsNotATerminalTest {
  @Test
  void outputPipedToAnotherProcessIsNotATerminal() {
    assertFalse(ExperimentProgress.onTerminal());
  }
}
