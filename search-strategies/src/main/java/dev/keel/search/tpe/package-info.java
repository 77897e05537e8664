/**
 * Tree-structured Parzen estimator (Bergstra et al. 2011): a model-based {@link
 * dev.keel.search.space.HyperparameterSampler} for every hyperparameter type, used by the {@code
 * tpe} searcher and, BOHB-style, as the sampler inside ASHA (it models the longest training length
 * that has enough results).
 */
package dev.keel.search.tpe;
