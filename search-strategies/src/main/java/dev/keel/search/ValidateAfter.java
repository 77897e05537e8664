package dev.keel.search;

import dev.keel.api.length.TrainingLength;

/**
 * Train trial {@code trialId} until its total length is {@code length} (counting any warm-started
 * training), validate, then report {@link Searcher#validationCompleted}.
 */
public record ValidateAfter(long trialId, TrainingLength length) implements Operation {}
