/** A worker process: which task queues it polls and which activity implementations it hosts. */
package dev.keel.service.worker;
