/** How Keel's processes log: one line for failures the user caused, stack traces for the rest. */
package dev.keel.service.logging;
