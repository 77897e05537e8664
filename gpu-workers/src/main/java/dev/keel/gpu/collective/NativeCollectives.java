package dev.keel.gpu.collective;

import ai.djl.engine.Engine;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Loads Keel's c10d libraries from the classpath ({@code native/linux-x86_64/} in this module's
 * jar), lazily and once per JVM.
 *
 * <p>They link libtorch by SONAME, so DJL's PyTorch engine is initialised first: the dynamic loader
 * then binds them to the very libtorch DJL loaded. A library is copied to {@code <cache>/<sha-256
 * of its bytes>/} before loading (the JVM can only load files); several JVMs may do so at once, so
 * each writes a temporary file and renames it into place. The cache is {@code keel.native.cache},
 * else {@code $XDG_CACHE_HOME/keel/native}, else {@code ~/.cache/keel/native}.
 */
public final class NativeCollectives {
  static final String GLOO_LIBRARY = "keel_c10d";
  static final String NCCL_LIBRARY = "keel_c10d_nccl";
  private static final String PLATFORM = "linux-x86_64";
  private static final String HOW_TO_BUILD =
      "build it with ./mvnw -pl gpu-workers -am package on Linux x86-64 with g++, python3 -m pip and apt-get"
          + " (see gpu-workers/README.md)";

  private static final Object LOCK = new Object();
  private static boolean glooLoaded;
  private static CollectiveException glooFailure;
  private static boolean ncclLoaded;
  private static CollectiveException ncclFailure;

  private NativeCollectives() {}

  /**
   * Loads {@code libkeel_c10d.so} (TCPStore and Gloo) after DJL's PyTorch engine; idempotent.
   *
   * @throws CollectiveException with a one-line message saying what is missing and how to build it
   */
  public static void load() {
    synchronized (LOCK) {
      if (glooLoaded) {
        return;
      }
      if (glooFailure != null) {
        throw glooFailure;
      }
      try {
        loadLibrary(GLOO_LIBRARY, "it must be built against DJL's libtorch 2.7.1: " + HOW_TO_BUILD);
        glooLoaded = true;
      } catch (CollectiveException e) {
        glooFailure = e;
        throw e;
      }
    }
  }

  /**
   * Loads {@code libkeel_c10d_nccl.so}, only where DJL's PyTorch engine sees a CUDA GPU: the
   * library needs libtorch_cuda, which a CPU build of libtorch does not have.
   */
  static void loadNccl() {
    load();
    synchronized (LOCK) {
      if (ncclLoaded) {
        return;
      }
      if (ncclFailure != null) {
        throw ncclFailure;
      }
      try {
        int gpus = Engine.getEngine("PyTorch").getGpuCount();
        if (gpus == 0) {
          throw new CollectiveException(
              "NCCL needs a CUDA GPU, and DJL's PyTorch engine sees none"
                  + " (no GPU or driver, or a CPU build of libtorch): use GlooProcessGroup on this machine");
        }
        loadLibrary(
            NCCL_LIBRARY,
            "it needs a CUDA build of libtorch 2.7.1 under DJL, with libtorch_cuda.so and"
                + " libc10_cuda.so loadable by name (e.g. the torch 2.7.1 wheel's torch/lib on LD_LIBRARY_PATH)");
        ncclLoaded = true;
      } catch (CollectiveException e) {
        ncclFailure = e;
        throw e;
      }
    }
  }

  /**
   * Loads a library built on this host against its own PyTorch (gpu-workers/gpu-check/
   * build-native.sh: the store and NCCL in one file) instead of the ones in the jar, which need
   * DJL's libtorch 2.7.1. DJL's engine is not started: the library finds the host's libtorch
   * through its run path. Only {@link Store} and {@link NcclProcessGroup} work afterwards, not
   * Gloo.
   *
   * @throws CollectiveException when this JVM already loaded the jar's libraries, or the file does
   *     not load
   */
  public static void loadHostLibrary(Path library) {
    synchronized (LOCK) {
      if (glooLoaded || ncclLoaded) {
        throw new CollectiveException(
            "Keel's c10d libraries are already loaded in this JVM; " + library + " would clash");
      }
      try {
        System.load(library.toAbsolutePath().toString());
      } catch (UnsatisfiedLinkError e) {
        throw new CollectiveException(library + " failed to load (" + oneLine(e) + ")", e);
      }
      glooLoaded = true;
      ncclLoaded = true;
    }
  }

  /**
   * Benchmark only: the time of each of {@code iterations} single-process memcpy calls of {@code
   * bytes}, in nanoseconds; the bound a loopback collective cannot beat.
   */
  public static long[] benchmarkMemcpy(long bytes, int iterations) {
    load();
    return C10d.benchMemcpy(bytes, iterations);
  }

  /**
   * @param loadHint what to check when the file is there but the dynamic loader refuses it
   */
  private static void loadLibrary(String name, String loadHint) {
    String os = System.getProperty("os.name", "?");
    String arch = System.getProperty("os.arch", "?");
    if (!os.toLowerCase(Locale.ROOT).startsWith("linux")
        || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      throw new CollectiveException(
          "Keel's c10d library is built for "
              + PLATFORM
              + " only; this JVM runs on "
              + os
              + "/"
              + arch);
    }
    try {
      Engine.getEngine("PyTorch");
    } catch (RuntimeException e) {
      throw new CollectiveException(
          "DJL's PyTorch engine did not start, and lib"
              + name
              + ".so links its libtorch: "
              + oneLine(e),
          e);
    }
    String file = System.mapLibraryName(name);
    String resource = "/native/" + PLATFORM + "/" + file;
    byte[] bytes;
    try (InputStream in = NativeCollectives.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new CollectiveException(
            file
                + " is not on the classpath ("
                + resource
                + " in keel-gpu-workers): "
                + HOW_TO_BUILD);
      }
      bytes = in.readAllBytes();
    } catch (IOException e) {
      throw new CollectiveException(
          "cannot read " + resource + " from the classpath: " + oneLine(e), e);
    }
    Path path;
    try {
      path = extract(file, bytes);
    } catch (IOException e) {
      throw new CollectiveException(
          "cannot copy "
              + file
              + " to "
              + cacheDir()
              + ": "
              + oneLine(e)
              + " (set -Dkeel.native.cache to a writable directory)",
          e);
    }
    try {
      System.load(path.toString());
    } catch (UnsatisfiedLinkError e) {
      throw new CollectiveException(file + " failed to load (" + oneLine(e) + "); " + loadHint, e);
    }
  }

  private static Path extract(String file, byte[] bytes) throws IOException {
    Path dir = cacheDir().resolve(sha256(bytes).substring(0, 32));
    Path target = dir.resolve(file);
    if (Files.isRegularFile(target) && Files.size(target) == bytes.length) {
      return target; // the directory name is the content's hash, and files only appear there by
      // rename
    }
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, file, ".tmp");
    try {
      Files.write(tmp, bytes);
      try {
        Files.move(
            tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
    return target;
  }

  static Path cacheDir() {
    String configured = System.getProperty("keel.native.cache");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured);
    }
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base =
        xdg != null && !xdg.isBlank()
            ? Path.of(xdg)
            : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("keel").resolve("native");
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static String oneLine(Throwable e) {
    String m = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
    return m.replaceAll("\\s*\\R\\s*", " ").strip();
  }
}
