/**
 * Finding Keel's workflows in Temporal's visibility store, on real servers and on the Java test
 * server.
 */
package dev.keel.service.visibility;
