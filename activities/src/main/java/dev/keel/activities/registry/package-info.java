/** The model registry's activities: register, read and promote model versions. */
package dev.keel.activities.registry;
