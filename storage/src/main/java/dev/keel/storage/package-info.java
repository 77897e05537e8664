/**
 * Where Keel keeps its bytes: the storage root ({@code file://} or {@code s3://}) and its layout
 * ({@code tables/}, {@code checkpoints/}, {@code _keel/}), S3 clients and settings from the usual
 * AWS environment, the start-up probe, and the translation of storage errors into one-line,
 * non-retryable activity failures. No Delta, no DJL: every worker role can use it.
 */
package dev.keel.storage;
