/**
 * Training lengths with their unit (batches, records, epochs): conversion from and to the {@code
 * keel.v1.Length} message, arithmetic within one unit, validation of configured lengths, and the
 * one conversion to batches, which only the trainer can call because only it knows the batch size
 * and the number of training rows.
 */
package dev.keel.api.length;
