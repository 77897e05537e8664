package dev.keel.service.pool;

import dev.keel.api.v1.AwsAutoScalingGroup;
import dev.keel.api.v1.PoolSpec;
import dev.keel.api.v1.TofuApply;
import dev.keel.workflows.pool.PoolSpecs;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * OpenTofu as .ci/run builds it into .tools/ (infra/terraform/tools/install.sh), and copies of the
 * test configurations.
 */
final class TofuTools {
  private TofuTools() {}

  static Path home() {
    return Path.of(System.getProperty("keel.home", "..")).toAbsolutePath().normalize();
  }

  static Path tofu() {
    Path tofu = home().resolve(".tools/tofu");
    if (!Files.isExecutable(tofu)) {
      throw new IllegalStateException(
          tofu + " is missing: infra/terraform/tools/install.sh (or .ci/run) builds it");
    }
    return tofu;
  }

  /** A fresh copy of {@code src/test/resources/pool/<name>/} in a temporary directory. */
  static Path copy(String name) throws IOException {
    Path dir = Files.createTempDirectory("keel-" + name);
    try (InputStream in = TofuTools.class.getResourceAsStream("/pool/" + name + "/main.tf")) {
      Files.copy(in, dir.resolve("main.tf"));
    }
    return dir;
  }

  /** A tofu actuator spec for {@code dir}, with its defaults. */
  static TofuApply.Builder spec(Path dir, AwsAutoScalingGroup group) {
    return PoolSpecs.withDefaults(
        PoolSpec.newBuilder()
            .setName("gpu")
            .setTofu(
                TofuApply.newBuilder()
                    .setWorkingDir(dir.toString())
                    .setBinary(tofu().toString())
                    .setAwsAsg(group))
            .build())
        .getTofu()
        .toBuilder();
  }

  /** {@code tofu output -raw NAME} in {@code dir}. */
  static String output(Path dir, String name) throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(List.of(tofu().toString(), "output", "-no-color", "-raw", name))
            .directory(dir.toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    // reading the state needs no CLI configuration, and tofu warns on stdout about one it cannot
    // open
    pb.environment().remove("TF_CLI_CONFIG_FILE");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("tofu output " + name + " in " + dir + ": " + out);
    }
    return out.strip();
  }
}
