/** The checkpoint garbage-collection contract. */
package dev.keel.activities.checkpoint;
