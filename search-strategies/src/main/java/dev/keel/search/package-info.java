/** Pure, deterministic hyperparameter searchers (no Temporal, no I/O); filled by the search-strategies issue. */
package dev.keel.search;
