/**
 * This process's metrics in Prometheus form: Micrometer's global registry with a Prometheus
 * registry in it ({@link dev.keel.service.metrics.KeelMetrics}), Temporal's client and worker
 * metrics, the JVM's, and Keel's own (activities running and failed by type, checkpoint bytes,
 * training samples).
 */
package dev.keel.service.metrics;
