package dev.keel.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CheckpointStorageForRootTest {

  @Test
  void s3RootGetsS3StorageAndOtherSchemesAreRefused() {
    assertTrue(CheckpointStorage.forRoot("s3://bucket/ckpt") instanceof S3CheckpointStorage);
    assertEquals("s3://bucket/ckpt/", CheckpointStorage.forRoot("s3a://bucket/ckpt/").rootUri());
    assertThrows(
        IllegalArgumentException.class, () -> CheckpointStorage.forRoot("gs://bucket/ckpt"));
  }
}
