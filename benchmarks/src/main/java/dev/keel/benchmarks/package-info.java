/**
 * Benchmarks of Keel as main classes (never run by the build): {@link
 * dev.keel.benchmarks.PlatformOverheadBenchmark}, {@link
 * dev.keel.benchmarks.FashionSearchBenchmark} and {@link dev.keel.benchmarks.AllreduceBenchmark}.
 */
package dev.keel.benchmarks;
