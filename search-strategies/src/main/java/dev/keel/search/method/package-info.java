/**
 * Searchers whose trials are independent and each train to {@code max_length}: {@code single}, {@code grid},
 * {@code random} and {@code tpe} differ only in how they pick hyperparameters.
 */
package dev.keel.search.method;
