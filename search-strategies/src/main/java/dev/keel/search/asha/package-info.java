/**
 * {@code adaptive_asha}: asynchronous successive halving (Li et al., "A System for Massively
 * Parallel Hyperparameter Tuning", 2020) in brackets, with Determined's knobs. {@link
 * dev.keel.search.asha.AdaptiveAshaSpec} names it, checks its settings and builds it; {@link
 * dev.keel.search.asha.AshaPlan} holds the rung arithmetic; {@link
 * dev.keel.search.asha.AdaptiveAshaSearch} runs it, either promoting the top 1/divisor of a rung
 * when a slot frees (default) or, with {@code stop_once}, stopping trials outside it.
 *
 * <p>Decisions follow Determined's, with one deliberate difference: the {@code max_rungs} cap uses
 * an exact integer logarithm, where Determined's floating-point one loses a rung at some exact
 * powers of the divisor ({@code max_length} 1000 with divisor 10: Keel 4 rungs, Determined 3).
 * Exact arithmetic is the same on every JVM and keeps the documented rule; {@code max_rungs}
 * reproduces Determined's plan when wanted.
 */
package dev.keel.search.asha;
