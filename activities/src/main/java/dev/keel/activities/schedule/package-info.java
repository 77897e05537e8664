/** Acting on Temporal Schedules from a workflow: triggering a scheduled retraining now. */
package dev.keel.activities.schedule;
