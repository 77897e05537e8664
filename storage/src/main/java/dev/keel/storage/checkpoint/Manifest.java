package dev.keel.storage.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;

/**
 * The {@value CheckpointFiles#MANIFEST} of a checkpoint: one line per file, {@code <sha256> <size>
 * <name>}, then {@code END <count>} so a truncated manifest is detected too.
 */
public final class Manifest {
  private static final String HEADER = "KEEL-CHECKPOINT-MANIFEST 1";

  /** One listed file. */
  public record Entry(String name, long size, String sha256) {}

  private final List<Entry> entries;

  private Manifest(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  public List<Entry> entries() {
    return entries;
  }

  public long totalBytes() {
    return entries.stream().mapToLong(Entry::size).sum();
  }

  /** Hashes {@code names} in {@code dir}. */
  public static Manifest of(Path dir, List<String> names) throws IOException {
    List<Entry> entries = new ArrayList<>();
    for (String name : new TreeSet<>(names)) {
      Path f = dir.resolve(name);
      entries.add(new Entry(name, Files.size(f), sha256(f)));
    }
    return new Manifest(entries);
  }

  public void writeTo(Path dir) throws IOException {
    StringBuilder sb = new StringBuilder(HEADER).append('\n');
    for (Entry e : entries) {
      sb.append(e.sha256()).append(' ').append(e.size()).append(' ').append(e.name()).append('\n');
    }
    sb.append("END ").append(entries.size()).append('\n');
    Files.writeString(dir.resolve(CheckpointFiles.MANIFEST), sb, StandardCharsets.UTF_8);
  }

  /**
   * Reads the manifest of {@code dir} and checks that it lists every required file and that each
   * listed file has the recorded size and SHA-256.
   *
   * @param location the checkpoint URI, for messages
   * @throws CorruptCheckpointException naming the first bad file
   */
  public static Manifest verify(Path dir, String location, List<String> required) {
    Path manifestFile = dir.resolve(CheckpointFiles.MANIFEST);
    List<String> lines;
    try {
      lines = Files.readAllLines(manifestFile, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new CorruptCheckpointException(
          location,
          CheckpointFiles.MANIFEST,
          "missing: the checkpoint is partial (never committed)");
    } catch (IOException e) {
      throw new CorruptCheckpointException(
          location, CheckpointFiles.MANIFEST, "unreadable: " + e, e);
    }
    List<Entry> entries = parse(lines, location);
    for (String name : required) {
      if (entries.stream().noneMatch(e -> e.name().equals(name))) {
        throw new CorruptCheckpointException(
            location, name, "not listed in " + CheckpointFiles.MANIFEST);
      }
    }
    for (Entry e : entries) {
      Path f = dir.resolve(e.name());
      long size;
      try {
        size = Files.size(f);
      } catch (NoSuchFileException ex) {
        throw new CorruptCheckpointException(location, e.name(), "listed in MANIFEST but missing");
      } catch (IOException ex) {
        throw new CorruptCheckpointException(location, e.name(), "unreadable: " + ex, ex);
      }
      if (size != e.size()) {
        throw new CorruptCheckpointException(
            location, e.name(), "size " + size + " bytes, MANIFEST says " + e.size());
      }
      String sha;
      try {
        sha = sha256(f);
      } catch (IOException ex) {
        throw new CorruptCheckpointException(location, e.name(), "unreadable: " + ex, ex);
      }
      if (!sha.equals(e.sha256())) {
        throw new CorruptCheckpointException(
            location, e.name(), "sha256 " + sha + " does not match MANIFEST (" + e.sha256() + ")");
      }
    }
    return new Manifest(entries);
  }

  private static List<Entry> parse(List<String> lines, String location) {
    String m = CheckpointFiles.MANIFEST;
    if (lines.isEmpty() || !lines.get(0).equals(HEADER)) {
      throw new CorruptCheckpointException(location, m, "bad header");
    }
    List<Entry> entries = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("END ")) {
        if (!line.equals("END " + entries.size()) || i != lines.size() - 1) {
          throw new CorruptCheckpointException(location, m, "bad END line: " + line);
        }
        return entries;
      }
      String[] parts = line.split(" ", 3);
      try {
        if (parts.length != 3 || parts[0].length() != 64 || parts[2].contains("/")) {
          throw new IllegalArgumentException();
        }
        entries.add(new Entry(parts[2], Long.parseLong(parts[1]), parts[0]));
      } catch (IllegalArgumentException e) {
        throw new CorruptCheckpointException(location, m, "bad line " + (i + 1) + ": " + line);
      }
    }
    throw new CorruptCheckpointException(location, m, "truncated (no END line)");
  }

  static String sha256(Path file) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    byte[] buf = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buf)) > 0; ) {
        md.update(buf, 0, n);
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
