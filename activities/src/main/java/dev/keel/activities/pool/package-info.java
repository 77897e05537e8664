/**
 * Sizing a pool of worker machines to its queue: observing the training demand Keel has for a pool
 * ({@link dev.keel.activities.pool.PoolDemandActivities}) and reading and resizing the machines
 * that serve it ({@link dev.keel.activities.pool.PoolCapacityActivities}); the PoolProvisioner
 * workflow calls them.
 */
package dev.keel.activities.pool;
