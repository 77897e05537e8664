package dev.keel.search;

import dev.keel.api.length.TrainingLength;

/**
 * A trial forks from its parent's checkpoint taken at {@code parentLength} (the parent's last
 * validation).
 */
public record WarmStart(long parentTrialId, TrainingLength parentLength) {}
