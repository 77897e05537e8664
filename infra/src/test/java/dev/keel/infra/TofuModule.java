package dev.keel.infra;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One module (or root) of infra/terraform in a working copy of the whole tree (modules refer to
 * each other by relative path), under {@code target/test-tmp}: tofu runs there, never in the
 * sources.
 */
final class TofuModule {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final String VAR_FILE = "keel-test.tfvars.json";

  private final Path dir;
  private final Tool tofu;

  private TofuModule(Path dir) {
    this.dir = dir;
    this.tofu = Tool.tofu(dir);
  }

  /**
   * A fresh copy of infra/terraform, without local state or .terraform directories; {@code path} in
   * it.
   */
  static TofuModule copyOf(String path) {
    return new TofuModule(copyOfSources().resolve(path));
  }

  static Path copyOfSources() {
    Path src = InfraTools.terraformSources();
    try {
      Path base =
          Path.of(System.getProperty("keel.test.tmp", System.getProperty("java.io.tmpdir")));
      Files.createDirectories(base);
      Path copy = Files.createTempDirectory(base, "terraform-");
      Files.walkFileTree(
          src,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes a)
                throws IOException {
              if (d.getFileName().toString().equals(".terraform")) {
                return FileVisitResult.SKIP_SUBTREE;
              }
              Files.createDirectories(copy.resolve(src.relativize(d)));
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
              String name = f.getFileName().toString();
              if (!name.contains(".tfstate") && !name.equals(".terraform.lock.hcl")) {
                Files.copy(f, copy.resolve(src.relativize(f)));
              }
              return FileVisitResult.CONTINUE;
            }
          });
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path dir() {
    return dir;
  }

  Tool tofu() {
    return tofu;
  }

  /**
   * Points the aws provider at moto: a provider block of its own for a module, an override file for
   * a root that has one (the example's providers.tf).
   */
  TofuModule against(MotoServer moto) {
    boolean hasProvider;
    try (Stream<Path> files = Files.list(dir)) {
      hasProvider =
          files
              .filter(f -> f.toString().endsWith(".tf"))
              .anyMatch(f -> read(f).contains("provider \"aws\""));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    write(hasProvider ? "moto_override.tf" : "moto_provider.tf", moto.providerBlock());
    return this;
  }

  /** The variables of every later plan, apply and destroy (a JSON var file). */
  TofuModule vars(Map<String, ?> vars) {
    try {
      Files.writeString(
          dir.resolve(VAR_FILE), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(vars));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  TofuModule write(String file, String content) {
    try {
      Files.writeString(dir.resolve(file), content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  Tool.Result init(String... args) {
    return tofu.run(concat(List.of("init", "-no-color"), args)).ok();
  }

  /**
   * {@code tofu apply} with the var file and {@code extraArgs} (e.g. -var desired_capacity=3):
   * whatever it exits with.
   */
  Tool.Result tryApply(String... extraArgs) {
    return tofu.run(
        concat(List.of("apply", "-auto-approve", "-no-color", "-var-file=" + VAR_FILE), extraArgs));
  }

  Tool.Result apply(String... extraArgs) {
    return tryApply(extraArgs).ok();
  }

  Tool.Result plan(String... extraArgs) {
    return tofu.run(
        concat(
            List.of("plan", "-detailed-exitcode", "-no-color", "-var-file=" + VAR_FILE),
            extraArgs));
  }

  /** A plan right after an apply: exit 0 (no changes), else the plan is the failure message. */
  void planShowsNoChanges(String... extraArgs) {
    plan(extraArgs).expectExit(0);
  }

  Tool.Result destroy(String... extraArgs) {
    return tofu.run(
            concat(
                List.of("destroy", "-auto-approve", "-no-color", "-var-file=" + VAR_FILE),
                extraArgs))
        .ok();
  }

  JsonNode outputs() {
    try {
      return JSON.readTree(tofu.run("output", "-json").ok().output());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String[] concat(List<String> head, String... tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(List.of(tail));
    return all.toArray(String[]::new);
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
