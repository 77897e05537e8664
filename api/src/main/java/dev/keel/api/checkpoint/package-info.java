/** What Keel writes into a checkpoint reference besides where it is: the keys of its metrics. */
package dev.keel.api.checkpoint;
