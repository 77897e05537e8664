/**
 * The experiment catalog: the {@code _keel/} Delta tables (experiments, trials, metrics,
 * checkpoints) that outlive Temporal's retention, and the light activities that commit to them and
 * pin data-table versions. Served by the control worker.
 */
package dev.keel.tables.catalog;
