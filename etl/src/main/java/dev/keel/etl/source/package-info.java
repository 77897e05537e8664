/**
 * Where an ingest's input comes from: a local path, a {@code file:} URI or an {@code s3://} object
 * or prefix, listed as files in a stable order with one checksum over names and bytes.
 */
package dev.keel.etl.source;
