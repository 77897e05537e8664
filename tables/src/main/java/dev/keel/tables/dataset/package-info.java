/**
 * What a trainer or scorer reads: one split of a pinned table version as {@link
 * dev.keel.tables.dataset.LabeledExamples}, either labeled images or labeled feature vectors.
 */
package dev.keel.tables.dataset;
