package dev.keel.gpu.torch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Model files written by stock PyTorch, for tests of what Keel does with files it did not write:
 * runs {@code src/test/python/keel_torch_fixtures.py} with the venv {@code .tools/torchenv} (made
 * by {@code gpu-workers/python/torch-venv.sh} in process-test-classes). A missing venv fails the
 * test: skipping would let a build without PyTorch pass tests it never ran.
 *
 * <p>Tensors go to and from Python as {@code .npy} files (float32, little-endian), written and read
 * here so that the tests need no numpy binding.
 */
public final class PyTorchFixtures {
  static final String VENV_MISSING =
      "the venv `.tools/torchenv` is missing; it is made by"
          + " `./mvnw -pl gpu-workers -am process-test-classes` (gpu-workers/python/torch-venv.sh)";

  /** A bound on a hang: importing torch takes a few seconds, a forward pass of a fixture less. */
  private static final long TIMEOUT_S = 120;

  private static final String SCRIPT = "src/test/python/keel_torch_fixtures.py";
  private static final byte[] NPY_MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};

  private PyTorchFixtures() {}

  /** A scripted Linear, ReLU, Linear with parameters {@code fc1.*} and {@code fc2.*}. */
  public static Path mlp(Path dir, int features, int classes, int hidden, long seed)
      throws IOException {
    Path out =
        Files.createDirectories(dir)
            .resolve("mlp-%d-%d-%d-seed%d.pt".formatted(features, classes, hidden, seed));
    run(
        "mlp",
        "--features",
        str(features),
        "--classes",
        str(classes),
        "--hidden",
        str(hidden),
        "--seed",
        str(seed),
        "--out",
        out.toString());
    return out;
  }

  /**
   * A scripted two-conv CNN: {@code features} (conv, [BatchNorm,] ReLU, max pool, conv,
   * [BatchNorm,] ReLU, global average pool, flatten) then {@code head} (Linear 2·width → classes),
   * for inputs of shape (N, channels, size, size).
   */
  public static Path cnn(
      Path dir, int channels, int size, int classes, int width, long seed, boolean batchnorm)
      throws IOException {
    Path out =
        Files.createDirectories(dir)
            .resolve(
                "cnn-%d-%d-%d-%d-seed%d%s.pt"
                    .formatted(channels, size, classes, width, seed, batchnorm ? "-bn" : ""));
    List<String> args =
        new ArrayList<>(
            List.of(
                "cnn",
                "--channels",
                str(channels),
                "--size",
                str(size),
                "--classes",
                str(classes),
                "--width",
                str(width),
                "--seed",
                str(seed),
                "--out",
                out.toString()));
    if (batchnorm) {
      args.add("--batchnorm");
    }
    run(args.toArray(String[]::new));
    return out;
  }

  /** An mlp's {@code torch.save(state_dict)}: a pickle of tensors, not a TorchScript file. */
  public static Path stateDict(Path dir, int features, int classes) throws IOException {
    Path out =
        Files.createDirectories(dir).resolve("state-dict-%d-%d.pt".formatted(features, classes));
    run(
        "state-dict",
        "--features",
        str(features),
        "--classes",
        str(classes),
        "--out",
        out.toString());
    return out;
  }

  /**
   * PyTorch's own outputs of {@code model} (eval mode, no grad) for {@code rows}, each row one
   * example of shape {@code exampleShape} flattened in C order; each output row likewise.
   */
  public static float[][] predict(Path model, float[][] rows, long[] exampleShape)
      throws IOException {
    Path dir = Files.createTempDirectory(model.toAbsolutePath().getParent(), "predict-");
    Path in = dir.resolve("in.npy");
    Path out = Files.createDirectories(dir).resolve("out.npy");
    long[] shape = new long[exampleShape.length + 1];
    shape[0] = rows.length;
    System.arraycopy(exampleShape, 0, shape, 1, exampleShape.length);
    writeNpy(in, shape, rows);
    run(
        "predict",
        "--model",
        model.toString(),
        "--input",
        in.toString(),
        "--output",
        out.toString());
    return readNpy(out);
  }

  /** {@code {"parameters": {name: shape}, "buffers": {name: shape}}} of a TorchScript file. */
  public static String info(Path model) throws IOException {
    return run("info", "--model", model.toString()).strip();
  }

  /**
   * The values of every parameter and buffer (e.g. batch-norm running statistics) of a TorchScript
   * file, by name, each flattened in C order.
   */
  public static Map<String, float[]> state(Path model) throws IOException {
    Map<String, float[]> out = new LinkedHashMap<>();
    for (String line : run("state", "--model", model.toString()).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      String[] nameAndValues = line.split("\t", 2);
      String[] values =
          nameAndValues.length < 2 || nameAndValues[1].isBlank()
              ? new String[0]
              : nameAndValues[1].strip().split(" ");
      float[] v = new float[values.length];
      for (int i = 0; i < values.length; i++) {
        v[i] = (float) Double.parseDouble(values[i]);
      }
      out.put(nameAndValues[0], v);
    }
    return out;
  }

  /** {@code <repo>/.tools}, or the {@code keel.tools.dir} system property (Surefire sets it). */
  static Path toolsDir() {
    String configured = System.getProperty("keel.tools.dir");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath().normalize();
    }
    return repoRoot().resolve(".tools");
  }

  static Path python() {
    Path python = toolsDir().resolve("torchenv/bin/python");
    if (!Files.isExecutable(python)) {
      throw new AssertionError(VENV_MISSING);
    }
    return python;
  }

  private static Path repoRoot() {
    Path cwd = Path.of("").toAbsolutePath();
    for (Path dir = cwd; dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("mvnw"))) {
        return dir;
      }
    }
    throw new AssertionError("no directory containing mvnw at or above " + cwd);
  }

  /** Surefire runs in the module directory; an IDE may run in the repository's. */
  private static Path script() {
    Path inModule = Path.of(SCRIPT).toAbsolutePath();
    Path script =
        Files.exists(inModule) ? inModule : repoRoot().resolve("gpu-workers").resolve(SCRIPT);
    if (!Files.exists(script)) {
      throw new AssertionError("the fixture script " + script + " is missing");
    }
    return script;
  }

  /** Runs the fixture script; returns its standard output, or fails with its standard error. */
  private static String run(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(python().toString(), script().toString()));
    cmd.addAll(Arrays.asList(args));
    // Files, not pipes: a process that fills a pipe nobody reads yet would block until the timeout.
    Path stdout = Files.createTempFile("keel-torch-fixtures-", ".out");
    Path stderr = Files.createTempFile("keel-torch-fixtures-", ".err");
    try {
      Process process =
          new ProcessBuilder(cmd)
              .redirectOutput(stdout.toFile())
              .redirectError(stderr.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .start();
      boolean exited;
      try {
        exited = process.waitFor(TIMEOUT_S, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while running " + String.join(" ", cmd), e);
      }
      if (!exited) {
        process.destroyForcibly();
        throw new AssertionError(
            "still running after "
                + TIMEOUT_S
                + " s: "
                + String.join(" ", cmd)
                + "\n"
                + Files.readString(stderr));
      }
      if (process.exitValue() != 0) {
        throw new AssertionError(
            "exit "
                + process.exitValue()
                + ": "
                + String.join(" ", cmd)
                + "\n"
                + Files.readString(stderr));
      }
      return Files.readString(stdout);
    } finally {
      Files.deleteIfExists(stdout);
      Files.deleteIfExists(stderr);
    }
  }

  private static String str(long n) {
    return Long.toString(n);
  }

  /** An {@code .npy} (version 1.0) of little-endian float32 in C order. */
  static void writeNpy(Path file, long[] shape, float[][] rows) throws IOException {
    long perRow = 1;
    for (int i = 1; i < shape.length; i++) {
      perRow *= shape[i];
    }
    for (int i = 0; i < rows.length; i++) {
      if (rows[i].length != perRow) {
        throw new IllegalArgumentException(
            "row " + i + " has " + rows[i].length + " values, its shape needs " + perRow);
      }
    }
    StringBuilder dims = new StringBuilder();
    for (long d : shape) {
      dims.append(d).append(", ");
    }
    // a one-element tuple keeps its comma, "(3,)"; longer ones may too
    String dict =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims.toString().strip() + "), }";
    int unpadded = NPY_MAGIC.length + 2 + 2 + dict.length() + 1;
    String header = dict + " ".repeat((64 - unpadded % 64) % 64) + "\n";
    ByteBuffer buf =
        ByteBuffer.allocate(
                NPY_MAGIC.length + 4 + header.length() + Math.toIntExact(rows.length * perRow * 4))
            .order(ByteOrder.LITTLE_ENDIAN);
    buf.put(NPY_MAGIC).put((byte) 1).put((byte) 0).putShort((short) header.length());
    buf.put(header.getBytes(StandardCharsets.US_ASCII));
    for (float[] row : rows) {
      for (float v : row) {
        buf.putFloat(v);
      }
    }
    Files.write(file, buf.array());
  }

  private static final Pattern DESCR = Pattern.compile("'descr':\\s*'([^']*)'");
  private static final Pattern FORTRAN = Pattern.compile("'fortran_order':\\s*(True|False)");
  private static final Pattern SHAPE = Pattern.compile("'shape':\\s*\\(([^)]*)\\)");

  /** The rows of an {@code .npy} of float32 with at least one dimension, each flattened. */
  static float[][] readNpy(Path file) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    byte[] magic = new byte[NPY_MAGIC.length];
    buf.get(magic);
    if (!Arrays.equals(magic, NPY_MAGIC)) {
      throw new IOException(file + " is not an .npy file");
    }
    int major = buf.get();
    buf.get();
    int headerLength = major == 1 ? Short.toUnsignedInt(buf.getShort()) : buf.getInt();
    byte[] headerBytes = new byte[headerLength];
    buf.get(headerBytes);
    String header = new String(headerBytes, StandardCharsets.ISO_8859_1);
    String descr = group(DESCR, header, file);
    String fortran = group(FORTRAN, header, file);
    if (!descr.equals("<f4") || !fortran.equals("False")) {
      throw new IOException(file + ": expected C-order '<f4', the header is " + header.strip());
    }
    List<Long> shape = new ArrayList<>();
    for (String d : group(SHAPE, header, file).split(",")) {
      if (!d.isBlank()) {
        shape.add(Long.parseLong(d.strip()));
      }
    }
    if (shape.isEmpty()) {
      throw new IOException(file + " holds a scalar, expected rows");
    }
    long perRow = shape.stream().skip(1).reduce(1L, (a, b) -> a * b);
    float[][] rows = new float[Math.toIntExact(shape.get(0))][Math.toIntExact(perRow)];
    for (float[] row : rows) {
      for (int j = 0; j < row.length; j++) {
        row[j] = buf.getFloat();
      }
    }
    return rows;
  }

  private static String group(Pattern pattern, String header, Path file) throws IOException {
    Matcher m = pattern.matcher(header);
    if (!m.find()) {
      throw new IOException(file + ": no " + pattern + " in the header " + header.strip());
    }
    return m.group(1);
  }
}
