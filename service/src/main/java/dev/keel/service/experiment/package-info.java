/** Starting, controlling and showing experiments from clients (CLI and REST). */
package dev.keel.service.experiment;
