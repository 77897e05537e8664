package dev.keel.gpu.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.keel.api.v1.ModelSpec;
import dev.keel.api.v1.TableRef;
import dev.keel.api.v1.TrainRequest;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.ModelZoo;
import dev.keel.gpu.testing.Requests;
import dev.keel.gpu.train.TrainingPlan;
import dev.keel.storage.testing.TestDirs;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@code model.torchscript} that names something other than a TorchScript archive is refused
 * before a trial trains, naming the file, what it is instead, and how to export the right one.
 */
class TorchScriptFilesThatAreNotTorchScriptAreNamedWithHowToExportTest {
  private static final TableRef TABLE =
      TableRef.newBuilder().setUri("file:///never/read").setVersion(0).build();

  private Path root;

  @BeforeEach
  void setUp() throws Exception {
    root = TestDirs.create("torchscript-not");
  }

  @Test
  void aStateDictSavedWithTorchSaveIsNamedAsSuchWithHowToScriptTheModel() throws Exception {
    Path stateDict = PyTorchFixtures.stateDict(root, 49, 10);
    InvalidFieldException e = refused(request(stateDict.toString()));
    assertEquals("model.torchscript", e.field());
    String m = e.getMessage();
    assertTrue(m.contains(stateDict.toString()), m);
    assertTrue(m.contains("torch.save"), m);
    assertTrue(m.contains("torch.jit.script"), m);
    assertFalse(m.contains("ONNX"), m);
  }

  @Test
  void anOnnxFileIsNamedAsOnnx() throws Exception {
    ByteArrayOutputStream onnx = new ByteArrayOutputStream();
    // ModelProto: ir_version (field 1, varint) 7, producer_name (field 2) "pytorch", then a graph
    onnx.write(new byte[] {0x08, 0x07, 0x12, 0x07});
    onnx.write("pytorch".getBytes(StandardCharsets.US_ASCII));
    onnx.write(new byte[] {0x1a, 0x05});
    onnx.write("2.7.1".getBytes(StandardCharsets.US_ASCII));
    onnx.write(new byte[] {0x3a, 0x04, 0x0a, 0x02, 0x08, 0x01});
    Path file = Files.write(root.resolve("model.onnx"), onnx.toByteArray());
    InvalidFieldException e = refused(request(file.toString()));
    assertEquals("model.torchscript", e.field());
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("ONNX"), e.getMessage());
    assertTrue(e.getMessage().contains("torch.jit.script"), e.getMessage());
  }

  @Test
  void anEmptyFileIsNamedAsEmpty() throws Exception {
    Path file = Files.write(root.resolve("empty.pt"), new byte[0]);
    InvalidFieldException e = refused(request(file.toString()));
    assertEquals("model.torchscript", e.field());
    assertTrue(e.getMessage().contains(file + " is empty"), e.getMessage());
  }

  @Test
  void aMissingFileIsNamedAsMissing() {
    Path file = root.resolve("nowhere").resolve("model.pt");
    InvalidFieldException e = refused(request(file.toString()));
    assertEquals("model.torchscript", e.field());
    assertTrue(e.getMessage().contains(file + " does not exist"), e.getMessage());
  }

  @Test
  void aMissingFileFilledFromATemplateNamesTheTemplateAndTheHyperparameter() throws Exception {
    PyTorchFixtures.mlp(root, 49, 10, 32, 0); // a file exists, but not the one hidden=64 names
    String template = root.resolve("mlp-{hidden}.pt").toString();
    Path filled = root.resolve("mlp-64.pt");
    InvalidFieldException e =
        refused(request(template).putHparams("hidden", Requests.num(64)).build());
    assertEquals("model.torchscript", e.field());
    String m = e.getMessage();
    assertTrue(m.contains(filled + " does not exist"), m);
    assertTrue(m.contains(template), m);
    assertTrue(m.contains("hidden=64"), m);
    assertFalse(m.contains("64.0"), m);
  }

  private InvalidFieldException refused(TrainRequest.Builder request) {
    return refused(request.build());
  }

  private static InvalidFieldException refused(TrainRequest request) {
    return assertThrows(
        InvalidFieldException.class,
        () -> TrainingPlan.from(request, ModelZoo.withBuiltIns()),
        "a plan was made for " + request.getModel().getTorchscript());
  }

  private TrainRequest.Builder request(String torchscript) {
    return Requests.tabularMlp(TABLE, root.resolve("checkpoints"), 10)
        .setModel(ModelSpec.newBuilder().setTorchscript(torchscript))
        .clearHparams()
        .putHparams("batch_size", Requests.num(32));
  }
}
