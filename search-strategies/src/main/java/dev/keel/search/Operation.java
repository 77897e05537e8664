package dev.keel.search;

/** What a searcher asks the experiment to do; immutable, answered by events on {@link Searcher}. */
public sealed interface Operation permits Create, ValidateAfter, Close, Shutdown {}
