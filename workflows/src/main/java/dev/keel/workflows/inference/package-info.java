/**
 * The {@code Inference} workflow: a table version's split scored as parallel partition activities
 * on {@code keel-infer} and committed as one predictions table version.
 */
package dev.keel.workflows.inference;
