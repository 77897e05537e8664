/**
 * A discrete-event simulator that runs any {@link dev.keel.search.Searcher} against a {@link
 * dev.keel.search.sim.LearningCurveOracle} with K simulated workers (no clocks, no threads), the
 * oracles (synthetic, recorded curves, random for previews), and {@link SearcherComparison} (the
 * {@code SearchBenchmark} program in the benchmarks module prints it).
 */
package dev.keel.search.sim;
