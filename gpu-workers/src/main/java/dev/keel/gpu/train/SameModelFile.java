package dev.keel.gpu.train;

import dev.keel.api.v1.ModelSpec;
import dev.keel.gpu.model.InvalidFieldException;
import dev.keel.gpu.model.torchscript.TorchScriptModel;
import dev.keel.storage.checkpoint.VerifiedCheckpoint;

/**
 * A TorchScript model resumes only against the file its checkpoint was trained from: a changed file
 * may hold another architecture under the same parameter names, which would train on silently.
 */
final class SameModelFile {
  private SameModelFile() {}

  static void require(ModelSpec plan, VerifiedCheckpoint checkpoint) {
    ModelSpec trained = checkpoint.metadata().model();
    String was = trained.getTorchscriptSha256();
    String now = plan.getTorchscriptSha256();
    if (was.equals(now)) {
      return;
    }
    throw new InvalidFieldException(
        TorchScriptModel.FIELD,
        (now.isEmpty()
                ? "this trial's model is no TorchScript file"
                : plan.getTorchscriptFile() + " has SHA-256 " + now)
            + ", but checkpoint "
            + checkpoint.uri()
            + " was trained from "
            + (was.isEmpty()
                ? "a model that is no TorchScript file"
                : trained.getTorchscriptFile() + " with SHA-256 " + was)
            + "; restore that file, or train the trial from scratch");
  }
}
