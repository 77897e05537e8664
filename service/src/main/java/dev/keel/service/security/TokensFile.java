package dev.keel.service.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The API's users: a YAML file of tokens, each with a name, a role and the SHA-256 of the token
 * (never the token itself), e.g.
 *
 * <pre>
 * tokens:
 *   - {name: alice, role: admin, sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08}
 *   - {name: ci, role: editor, sha256: ...}
 * </pre>
 *
 * The server reads it again whenever it changes, so tokens are added and revoked without a restart;
 * a file that became invalid refuses every token until it is mended (never the last good list: a
 * revocation must not be undone by a typo). Tokens are compared by their hash, in constant time
 * over every entry.
 */
public final class TokensFile {
  /** A token's name: what the audit table and a run's records show. */
  public static final String NAME = "[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** One token of the file. */
  public record Entry(String name, Role role, String sha256) {}

  private record Loaded(
      FileTime modified, long size, List<Entry> entries, byte[][] hashes, String problem) {}

  private final Path path;
  private volatile Loaded loaded;

  private TokensFile(Path path, Loaded loaded) {
    this.path = path;
    this.loaded = loaded;
  }

  /**
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  public static TokensFile open(Path path) {
    Loaded l = load(path);
    if (l.problem() != null) {
      throw new IllegalArgumentException(l.problem());
    }
    return new TokensFile(path, l);
  }

  public Path path() {
    return path;
  }

  /**
   * The caller a bearer token names, or empty when no entry holds its hash.
   *
   * @throws IllegalStateException when the file changed and is now invalid (every token is refused
   *     until mended)
   */
  public Optional<Caller> caller(String token) {
    Loaded l = current();
    if (l.problem() != null) {
      throw new IllegalStateException(l.problem());
    }
    byte[] given = sha256(token);
    Caller found = null;
    for (int i = 0;
        i < l.hashes().length;
        i++) { // every entry, so the time says nothing about which matched
      if (MessageDigest.isEqual(l.hashes()[i], given) && found == null) {
        found = new Caller(l.entries().get(i).name(), l.entries().get(i).role());
      }
    }
    return Optional.ofNullable(found);
  }

  /** The file as it is now: read again when its time or size changed since the last read. */
  private Loaded current() {
    Loaded l = loaded;
    try {
      FileTime modified = Files.getLastModifiedTime(path);
      long size = Files.size(path);
      if (modified.equals(l.modified()) && size == l.size()) {
        return l;
      }
    } catch (IOException e) {
      // gone or unreadable: load says so
    }
    Loaded fresh = load(path);
    loaded = fresh;
    return fresh;
  }

  /**
   * The entries of {@code path}. @throws IllegalArgumentException naming the file and its problem
   */
  public static List<Entry> read(Path path) {
    Loaded l = load(path);
    if (l.problem() != null) {
      throw new IllegalArgumentException(l.problem());
    }
    return l.entries();
  }

  private static Loaded load(Path path) {
    FileTime modified;
    long size;
    JsonNode doc;
    try {
      modified = Files.getLastModifiedTime(path);
      size = Files.size(path);
      doc = YAML.readTree(Files.readString(path, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return new Loaded(
          null,
          -1,
          List.of(),
          new byte[0][],
          "tokens file "
              + path
              + " cannot be read ("
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + firstLine(e.getMessage()))
              + ")");
    }
    List<Entry> entries = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    JsonNode tokens = doc == null ? null : doc.get("tokens");
    if (tokens == null || !tokens.isArray()) {
      problems.add("it has no list 'tokens' (each entry: name, role, sha256)");
    } else {
      Set<String> names = new HashSet<>();
      for (int i = 0; i < tokens.size(); i++) {
        JsonNode t = tokens.get(i);
        String at = "tokens[" + i + "]";
        String name = t.path("name").asText("");
        String hash = t.path("sha256").asText("").toLowerCase(Locale.ROOT);
        if (!name.matches(NAME)) {
          problems.add(at + ".name: must match " + NAME);
        } else if (!names.add(name)) {
          problems.add(at + ".name: '" + name + "' is listed twice");
        }
        Role role = null;
        try {
          role = Role.parse(t.path("role").asText(""));
        } catch (IllegalArgumentException e) {
          problems.add(at + ".role: " + e.getMessage());
        }
        if (t.has("token")) {
          problems.add(at + ": holds a token itself; keep only its sha256 (keel token hash)");
        }
        if (!hash.matches("[0-9a-f]{64}")) {
          problems.add(at + ".sha256: must be 64 hex digits (the SHA-256 of the token)");
        }
        if (problems.isEmpty()) {
          entries.add(new Entry(name, role, hash));
        }
      }
    }
    if (!problems.isEmpty()) {
      return new Loaded(
          modified,
          size,
          List.of(),
          new byte[0][],
          "tokens file " + path + ": " + String.join("; ", problems));
    }
    byte[][] hashes =
        entries.stream().map(e -> HexFormat.of().parseHex(e.sha256())).toArray(byte[][]::new);
    return new Loaded(modified, size, List.copyOf(entries), hashes, null);
  }

  /**
   * Adds (or replaces) a token's entry, writing the file anew (owner-only permissions when it
   * creates it).
   */
  public static void put(Path path, Entry entry) throws IOException {
    List<Entry> entries = new ArrayList<>(Files.exists(path) ? read(path) : List.of());
    entries.removeIf(e -> e.name().equals(entry.name()));
    entries.add(entry);
    write(path, entries);
  }

  /** Removes a token's entry; false when there was none. */
  public static boolean revoke(Path path, String name) throws IOException {
    List<Entry> entries = new ArrayList<>(read(path));
    boolean removed = entries.removeIf(e -> e.name().equals(name));
    if (removed) {
      write(path, entries);
    }
    return removed;
  }

  private static void write(Path path, List<Entry> entries) throws IOException {
    StringBuilder out =
        new StringBuilder(
            "# Keel API tokens: name, role (viewer|editor|admin) and the SHA-256 of each token.\n"
                + "# The server reads this file again when it changes. Written by keel token.\ntokens:\n");
    for (Entry e : entries) {
      out.append("  - {name: ")
          .append(e.name())
          .append(", role: ")
          .append(e.role().label())
          .append(", sha256: ")
          .append(e.sha256())
          .append("}\n");
    }
    Path dir = path.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path staged = Files.createTempFile(dir, ".tokens-", ".yaml");
    try {
      Files.setPosixFilePermissions(staged, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException notPosix) {
      // the file system has no POSIX permissions
    }
    Files.writeString(staged, out, StandardCharsets.UTF_8);
    // in one step: the server never reads half a file
    Files.move(staged, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  public static String sha256Hex(String token) {
    return HexFormat.of().formatHex(sha256(token));
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256")
          .digest(token.strip().getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String firstLine(String s) {
    return s.lines().findFirst().orElse("");
  }
}
