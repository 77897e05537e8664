package dev.keel.search;

/** Trial {@code trialId} is done; finish it and report {@link Searcher#trialClosed}. */
public record Close(long trialId) implements Operation {}
