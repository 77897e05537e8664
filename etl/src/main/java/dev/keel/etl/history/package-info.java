/**
 * The history of a data table as {@code keel data describe} shows it: one line per Delta version.
 */
package dev.keel.etl.history;
