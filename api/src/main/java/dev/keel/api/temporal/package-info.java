/**
 * The Temporal data converter that lets Keel's protobuf messages arrive as json/plain,
 * json/protobuf or binary/protobuf.
 */
package dev.keel.api.temporal;
