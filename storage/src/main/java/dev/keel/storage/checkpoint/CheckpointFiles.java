package dev.keel.storage.checkpoint;

import java.util.List;

/** File names inside a checkpoint directory. */
public final class CheckpointFiles {
  public static final String PARAMETERS = "parameters.djl";
  public static final String OPTIMIZER = "optimizer.bin";
  public static final String METADATA = "metadata.json";
  public static final String MANIFEST = "MANIFEST";

  /**
   * A registered TorchScript model's trained module as stock PyTorch loads it ({@code
   * torch.jit.load}); only the registry's copies have it.
   */
  public static final String TORCHSCRIPT = "model.pt";

  /** Every file the manifest must list. */
  public static final List<String> REQUIRED = List.of(PARAMETERS, OPTIMIZER, METADATA);

  private CheckpointFiles() {}
}
