/**
 * The model SPI of training workers: a {@link dev.keel.gpu.model.KeelModel} builds a DJL block from
 * validated {@link dev.keel.gpu.model.Hyperparameters}; {@link dev.keel.gpu.model.ModelZoo}
 * resolves a {@code ModelSpec} to a built-in model ({@code fashion_cnn} for 28×28 images, {@code
 * tabular_mlp} for feature vectors) or a user class; {@link dev.keel.gpu.model.DataShape} is what a
 * model is told about its table before it is built.
 */
package dev.keel.gpu.model;
