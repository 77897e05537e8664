/**
 * Experiments: a searcher in workflow code, one child workflow per trial, continue-as-new with the
 * searcher's snapshot, pause/activate/kill, catalog rows and checkpoint GC.
 */
package dev.keel.workflows.experiment;
