package dev.keel.service.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.storage.testing.S3ProxyExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code keel dev --storage s3://…} with an unusable root stops before starting anything, in one
 * line.
 */
@ExtendWith(S3ProxyExtension.class)
class KeelCliChecksAnS3StorageRootFirstTest {

  @Test
  void missingBucketStopsDevWithOneLine() {
    StringWriter err = new StringWriter();
    int code =
        KeelCli.run(
            new PrintWriter(err, true), "dev", "--storage", "s3://keel-cli-absent-bucket/keel");
    assertEquals(FriendlyErrors.INVALID_INPUT, code);
    assertEquals(
        "keel: storage s3://keel-cli-absent-bucket/keel: the bucket does not exist",
        err.toString().strip());
  }
}
