/** Keel's REST API (Micronaut): start pipelines, read their progress. */
package dev.keel.service.api;
