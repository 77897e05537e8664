/** Loading Keel's YAML/JSON configs into protobuf messages and validating them, reporting every problem with its field path. */
package dev.keel.api.config;
