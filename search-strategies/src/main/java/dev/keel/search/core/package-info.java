/**
 * The machinery every searcher shares: {@link dev.keel.search.core.SearchEngine} keeps the trial
 * book, enforces the protocol and {@code max_concurrent_trials}, sends {@code Shutdown} and
 * snapshots; a {@link dev.keel.search.core.SearchMethod} holds one algorithm and talks to the
 * engine through {@link dev.keel.search.core.SearchContext}. {@link dev.keel.search.core.Prng} is
 * the only randomness.
 */
package dev.keel.search.core;
