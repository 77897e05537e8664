/**
 * The model registry: named, numbered model versions with their own checkpoint copy under {@code
 * <storage root>/models/}, recorded as an append-only event log in the {@code _keel/models} Delta
 * table (a version's stage is its latest stage event).
 */
package dev.keel.tables.registry;
