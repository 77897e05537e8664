package dev.keel.storage.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.keel.api.v1.CheckpointRef;
import dev.keel.storage.testing.FakeCheckpoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints outlive a release: metadata of a later release in the same format (fields this one
 * does not know, in the top level and in the model) is read with those fields ignored; metadata of
 * a newer format, or with no format at all, is refused in one line naming the checkpoint, the file
 * and both formats, instead of a parse error about some field.
 */
class ACheckpointOfANewerFormatIsRefusedInOneLineTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path root;
  LocalCheckpointStorage storage;
  CheckpointRef ref;
  Path dir;

  @BeforeEach
  void write() throws Exception {
    storage = new LocalCheckpointStorage(root);
    ref = FakeCheckpoints.write(storage, "exp", "1", "c0ffee", 64);
    dir = storage.localDirectory(ref.getUri());
  }

  /** Rewrites metadata.json and seals it again, as the release that wrote it would have. */
  private void rewriteMetadata(java.util.function.Consumer<ObjectNode> change) throws Exception {
    Path file = dir.resolve(CheckpointFiles.METADATA);
    ObjectNode root = (ObjectNode) JSON.readTree(Files.readAllBytes(file));
    change.accept(root);
    Files.write(file, JSON.writeValueAsBytes(root));
    Manifest.of(dir, CheckpointFiles.REQUIRED).writeTo(dir);
  }

  @Test
  void fieldsALaterReleaseAddedAreIgnored() throws Exception {
    rewriteMetadata(
        root -> {
          root.put("lineage", "a field from a later release");
          ((ObjectNode) root.get("model")).put("quantization", "int8");
          ((ObjectNode) root.get("data")).put("snapshot_id", "x");
        });
    CheckpointMetadata m = VerifiedCheckpoint.open(storage, ref.getUri()).metadata();
    assertEquals("c0ffee", m.uuid());
    assertEquals("fashion_cnn", m.model().getName());
    assertEquals("file:///t", m.data().getUri());
    assertEquals(Map.of("searcher_metric", 0.5), m.metrics());
  }

  @Test
  void aNewerFormatIsNamedWithTheFormatThisReleaseReads() throws Exception {
    rewriteMetadata(root -> root.put("format_version", CheckpointMetadata.FORMAT_VERSION + 1));
    CorruptCheckpointException e =
        assertThrows(
            CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(storage, ref.getUri()));
    assertEquals(
        "checkpoint "
            + ref.getUri()
            + ": metadata.json: written in checkpoint format 2 by a newer Keel; this Keel reads"
            + " format 1 (score or resume it with workers of the release that wrote it, or newer)",
        e.getMessage());
  }

  @Test
  void metadataWithoutAFormatIsNotTakenForACheckpoint() throws Exception {
    rewriteMetadata(root -> root.remove("format_version"));
    CorruptCheckpointException e =
        assertThrows(
            CorruptCheckpointException.class, () -> VerifiedCheckpoint.open(storage, ref.getUri()));
    assertEquals(
        "checkpoint "
            + ref.getUri()
            + ": metadata.json: no format_version (a positive integer): not the metadata of a Keel"
            + " checkpoint",
        e.getMessage());
  }
}
