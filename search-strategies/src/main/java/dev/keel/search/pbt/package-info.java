/**
 * {@code pbt}: population based training (Jaderberg et al. 2017) in synchronous rounds with
 * truncation selection; exploit forks a better trial's checkpoint ({@link
 * dev.keel.search.WarmStart}), explore perturbs or resamples its hyperparameters.
 */
package dev.keel.search.pbt;
