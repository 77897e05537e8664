/** The {@code keel} command line (picocli): dev, demo, submit, status, validate, worker. */
package dev.keel.service.cli;
