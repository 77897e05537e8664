/** The audit table {@code _keel/audit}: who did what through Keel's API. */
package dev.keel.tables.audit;
