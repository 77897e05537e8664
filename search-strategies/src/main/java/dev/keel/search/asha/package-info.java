/**
 * {@code adaptive_asha}: asynchronous successive halving (Li et al., "A System for Massively Parallel
 * Hyperparameter Tuning", 2020) in brackets, with Determined's knobs. {@link dev.keel.search.asha.AdaptiveAshaSpec}
 * names it, checks its settings and builds it; {@link dev.keel.search.asha.AshaPlan} holds the rung arithmetic;
 * {@link dev.keel.search.asha.AdaptiveAshaSearch} runs it, either promoting the top 1/divisor of a rung when a slot
 * frees (default) or, with {@code stop_once}, stopping trials outside it.
 */
package dev.keel.search.asha;
