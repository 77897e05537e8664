/**
 * Users' own PyTorch models, exported as TorchScript ({@code torch.jit.script(model).save(path)}):
 * read from local or S3 storage, recognised (and anything else named), loaded as a trainable DJL
 * block with the file's or freshly drawn weights and frozen prefixes, and written back as
 * TorchScript.
 */
package dev.keel.gpu.model.torchscript;
