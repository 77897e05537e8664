package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code tofu test} in every module and the example root: the tests/*.tftest.hcl plans against
 * {@code mock_provider "aws"}, including the {@code expect_failures} runs that pin each validation.
 * Every run block must pass; none may be skipped.
 */
class ModuleUnitTestsPassWithMockedProviderTest {
  private static final Pattern SUMMARY = Pattern.compile("Success! (\\d+) passed, 0 failed\\.");

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.keel.infra.InfraTools#roots")
  void everyRunBlockPasses(String root) throws IOException {
    TofuModule module = TofuModule.copyOf(root);
    module.init("-backend=false");
    Tool.Result test = module.tofu().run("test", "-no-color").ok();
    Matcher m = SUMMARY.matcher(test.output());
    assertTrue(m.find(), () -> "no success line:\n" + test.output());
    long runs;
    try (Stream<Path> files = Files.list(module.dir().resolve("tests"))) {
      runs =
          files
              .filter(f -> f.toString().endsWith(".tftest.hcl"))
              .mapToLong(f -> Pattern.compile("(?m)^run \"").matcher(read(f)).results().count())
              .sum();
    }
    assertTrue(runs > 0, "no run blocks in " + root + "/tests");
    assertTrue(
        Long.parseLong(m.group(1)) == runs,
        () -> root + ": " + runs + " run blocks, but " + m.group() + "\n" + test.output());
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
