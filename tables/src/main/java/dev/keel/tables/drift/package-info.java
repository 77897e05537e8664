/**
 * The drift check's storage: {@code <storage root>/_keel/drift}, holding the statistics of training
 * splits (computed once per table version and split) and every inference run's drift report, and
 * the activity implementation over it.
 */
package dev.keel.tables.drift;
