/**
 * {@code hyperband} (Li et al., "Hyperband", JMLR 2018): brackets of synchronous successive
 * halving. A rung waits for every trial in it before the top 1/eta continue: that barrier is what
 * ASHA removes.
 */
package dev.keel.search.hyperband;
