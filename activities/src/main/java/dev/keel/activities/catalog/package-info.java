/**
 * The catalog contract: Keel's experiment, trial, metric and checkpoint records as Delta tables.
 */
package dev.keel.activities.catalog;
