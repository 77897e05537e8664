package dev.keel.gpu.model.torchscript;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The bytes of one model file as read, with their SHA-256.
 *
 * @param uri the file as the config named it, placeholders filled
 */
public record ModelFile(String uri, byte[] bytes, String sha256) {

  public static ModelFile of(String uri, byte[] bytes) {
    return new ModelFile(uri, bytes, sha256(bytes));
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** The hash as messages show it: its first 12 hex digits. */
  public String shortSha() {
    return sha256.substring(0, 12);
  }
}
