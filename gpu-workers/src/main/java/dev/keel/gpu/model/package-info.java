/**
 * The model SPI of training workers: a {@link dev.keel.gpu.model.KeelModel} builds a DJL block
 * from validated {@link dev.keel.gpu.model.Hyperparameters}; {@link dev.keel.gpu.model.ModelRegistry}
 * resolves a {@code ModelSpec} to a built-in model ({@code fashion_cnn}) or a user class.
 */
package dev.keel.gpu.model;
