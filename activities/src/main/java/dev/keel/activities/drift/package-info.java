/**
 * The drift check's activities: the statistics of a model's training data (computed once per table
 * version and split, then read back), and the durable record of each run's drift report.
 */
package dev.keel.activities.drift;
