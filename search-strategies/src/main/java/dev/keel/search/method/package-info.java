/**
 * Searchers whose trials are independent and each train to {@code max_length}: {@code single},
 * {@code grid}, {@code random} and {@code tpe} differ only in how they pick hyperparameters. The
 * first three's specs (name, rules, build) are here; {@code tpe}'s lives with its sampler.
 */
package dev.keel.search.method;
