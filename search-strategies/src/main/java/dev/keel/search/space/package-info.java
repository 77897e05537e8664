/**
 * The hyperparameter space of an experiment: one {@link dev.keel.search.space.Dimension} per
 * hyperparameter (const, int, double, log, categorical), uniform sampling, grids, perturbation, and
 * the {@link dev.keel.search.space.HyperparameterSampler}s that pick new trials (random here, TPE
 * in {@code dev.keel.search.tpe}).
 */
package dev.keel.search.space;
