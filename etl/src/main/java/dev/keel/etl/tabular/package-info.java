/**
 * Tabular sources (CSV, Parquet): a label column, numeric feature columns and an optional {@code
 * split} column, read record by record so that a corrupt one is named by file and line.
 */
package dev.keel.etl.tabular;
