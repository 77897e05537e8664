package dev.keel.gpu.model;

import ai.djl.ndarray.NDManager;
import ai.djl.nn.Block;

/**
 * A model that comes with its own block and weights (a TorchScript file) instead of building an
 * empty block for Keel to initialize: {@link #build} is not used for it.
 */
public interface PretrainedModel extends KeelModel {

  /**
   * The block with its first weights, its native memory owned by {@code manager}; frozen parameters
   * already marked.
   *
   * @param initSeed seeds any weights the model draws afresh
   */
  Block load(Hyperparameters hyperparameters, NDManager manager, long initSeed);
}
