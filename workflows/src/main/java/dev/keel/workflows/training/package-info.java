/**
 * What the Pipeline and Trial workflows share about training: the one builder of the trainer's
 * request, so both ask a training worker for the same thing in the same way.
 */
package dev.keel.workflows.training;
