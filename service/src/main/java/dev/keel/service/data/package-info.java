/** The storage root's data tables as the CLI and the REST API list them. */
package dev.keel.service.data;
