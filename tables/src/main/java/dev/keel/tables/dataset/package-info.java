/** What a trainer or scorer reads: labelled images of one split of a pinned table version. */
package dev.keel.tables.dataset;
