package dev.keel.infra;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where the tools of these tests are: {@code <keel home>/.tools/}, filled by {@code
 * infra/terraform/tools/install.sh}. A missing one skips the test that needs it, naming the tool.
 */
final class InfraTools {
  private InfraTools() {}

  static final String INSTALL = "infra/terraform/tools/install.sh installs it";

  /** Every module and the example root, each a directory of infra/terraform. */
  static final List<String> ROOTS =
      List.of(
          "modules/storage",
          "modules/iam",
          "modules/worker-pool",
          "modules/gpu-pool",
          "modules/cpu-pool",
          "envs/aws-example");

  static List<String> roots() {
    return ROOTS;
  }

  /** The repository root (Maven passes {@code keel.home}). */
  static Path home() {
    return Path.of(System.getProperty("keel.home", "..")).toAbsolutePath().normalize();
  }

  static Path terraformSources() {
    return home().resolve("infra/terraform");
  }

  static Path tools() {
    return home().resolve(".tools");
  }

  /** OpenTofu, with the AWS provider it installs from the local mirror only. */
  static Path tofu() {
    Path tofu = tools().resolve("tofu");
    assertTrue(Files.isExecutable(tofu), "no OpenTofu at " + tofu + ": " + INSTALL);
    Path provider =
        tools()
            .resolve(
                "tofu-plugins/registry.opentofu.org/hashicorp/aws/3.39.0/linux_amd64/terraform-provider-aws_v3.39.0_x5");
    assertTrue(
        Files.isExecutable(provider), "no AWS provider 3.39.0 at " + provider + ": " + INSTALL);
    assertTrue(Files.isRegularFile(cliConfig()), "no " + cliConfig() + ": " + INSTALL);
    return tofu;
  }

  /** The CLI configuration (TF_CLI_CONFIG_FILE) whose filesystem_mirror serves the provider. */
  static Path cliConfig() {
    return tools().resolve("tofu.tfrc");
  }

  static Path tflint() {
    return require(tools().resolve("tflint"), "tflint");
  }

  static Path checkov() {
    return require(tools().resolve("checkov-env/bin/checkov"), "checkov");
  }

  static Path motoServer() {
    return require(tools().resolve("s3env/bin/moto_server"), "moto_server");
  }

  private static Path require(Path binary, String name) {
    assertTrue(Files.isExecutable(binary), "no " + name + " at " + binary + ": " + INSTALL);
    return binary;
  }
}
