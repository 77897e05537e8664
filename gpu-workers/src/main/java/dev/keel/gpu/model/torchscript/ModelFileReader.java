package dev.keel.gpu.model.torchscript;

import dev.keel.storage.S3Clients;
import dev.keel.storage.S3Uri;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Reads a model file named by a local path, a {@code file:} URI or an {@code s3://} URI. Which
 * places a request may name is the server's check (its data roots), made before a trial starts.
 */
public interface ModelFileReader {

  /**
   * @throws java.nio.file.NoSuchFileException when there is no such file or object
   */
  byte[] read(String uri) throws IOException;

  /** Local files, and S3 objects through the client the environment configures. */
  static ModelFileReader standard() {
    return uri -> {
      String u = uri.strip();
      if (S3Uri.isS3(u)) {
        S3Uri s3 = S3Uri.parse(u);
        try {
          return S3Clients.fromEnvironment()
              .getObjectAsBytes(b -> b.bucket(s3.bucket()).key(s3.key()))
              .asByteArray();
        } catch (NoSuchKeyException e) {
          throw new NoSuchFileException(u);
        } catch (SdkException e) {
          throw new IOException(u + ": " + e.getMessage(), e);
        }
      }
      if (u.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*") && !u.startsWith("file:")) {
        throw new IOException(u + ": unsupported scheme (use a local path, a file: URI or s3://)");
      }
      return Files.readAllBytes(u.startsWith("file:") ? Path.of(URI.create(u)) : Path.of(u));
    };
  }
}
