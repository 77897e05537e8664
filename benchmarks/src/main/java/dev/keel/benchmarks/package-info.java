/**
 * Benchmarks of Keel as main classes (never run by the build): {@link
 * dev.keel.benchmarks.PlatformOverheadBenchmark} and {@link dev.keel.benchmarks.FashionSearchBenchmark}.
 */
package dev.keel.benchmarks;
