/**
 * Deterministic hyperparameter searchers: the contract ({@link dev.keel.search.Searcher}, its
 * events and {@link dev.keel.search.Operation}s), the factory ({@link dev.keel.search.Searchers})
 * and previews.
 *
 * <p>Pure Java, no Temporal, no I/O, no clocks, no threads, no JDK randomness: the experiment
 * workflow runs a searcher inside deterministic workflow code and rebuilds it by replay or from a
 * {@code snapshot()}.
 */
package dev.keel.search;
