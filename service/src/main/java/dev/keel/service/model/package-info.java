/** How people see the model registry: the {@code keel model} table and its JSON. */
package dev.keel.service.model;
