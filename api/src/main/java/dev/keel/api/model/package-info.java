/** What configs say about a user's own model file, shared by the validators and the workers. */
package dev.keel.api.model;
