/** Scheduled retraining: a Temporal Schedule whose action starts the pipeline workflow. */
package dev.keel.service.schedule;
