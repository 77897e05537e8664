/**
 * Keel's Delta table library on Delta Kernel: the writer (idempotent appends and replaces), the
 * dataset reader, table schemas, the S3 conditional-put log store and a local file system that
 * needs no Hadoop shell. Shared by ETL, training, inference and the catalog.
 */
package dev.keel.tables;
