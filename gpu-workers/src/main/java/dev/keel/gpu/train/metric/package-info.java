/**
 * What a trial is trained against and measured by: {@link dev.keel.gpu.train.metric.Loss} and
 * {@link dev.keel.gpu.train.metric.Metric}, each listed once in {@link
 * dev.keel.gpu.train.metric.Losses} and {@link dev.keel.gpu.train.metric.ValidationMetrics}. The
 * trainer's step and its evaluation read these lists, and the submission check takes a {@code
 * searcher.metric} only if one of them reports it; a new loss or metric is a class and a line in
 * its list.
 */
package dev.keel.gpu.train.metric;
