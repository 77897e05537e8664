/**
 * Starting and following pipelines from a terminal: the demo request, the launcher, the live
 * progress printer.
 */
package dev.keel.service.pipeline;
