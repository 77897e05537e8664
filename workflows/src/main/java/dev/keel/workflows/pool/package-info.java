/**
 * Cloud pools on demand: the {@code PoolProvisioner} workflow sizes a pool of worker machines to
 * the gangs queued and running on its queue. {@code PoolSpecs} (rules and defaults of a pool spec),
 * {@code PoolInstanceTracker} (what each instance does: starting, busy, idle since when), {@code
 * PoolScaling} (the pure decision and its reason) and {@code PoolBackoff} (launch-error back-off)
 * are plain code with table tests; the workflow wires them to the pool activities.
 */
package dev.keel.workflows.pool;
