/** What the lists of the CLI and the REST API share: the check of their filter values. */
package dev.keel.service.listing;
