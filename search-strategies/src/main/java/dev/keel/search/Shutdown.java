package dev.keel.search;

/**
 * The search is over: every trial it created has closed or exited. Sent once, as the last
 * operation.
 */
public record Shutdown() implements Operation {}
