/** The embedded development stack: a loopback Temporal server plus every worker in one JVM. */
package dev.keel.service.dev;
