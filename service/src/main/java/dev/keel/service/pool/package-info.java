/**
 * Pools on demand, the service side: the pool activities' implementations ({@code
 * ExperimentDemandObserver} for the demand, {@code PoolCapacityActivitiesImpl} over an {@code
 * AutoScalingActuator} or a {@code TofuApplyActuator}), and what the CLI and the REST API use to
 * start, stop, list and show provisioners ({@code PoolProvisioners}, {@code PoolTable}).
 */
package dev.keel.service.pool;
