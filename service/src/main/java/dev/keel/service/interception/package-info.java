/** What Keel's workers do around each activity call (checks, metrics, logging context). */
package dev.keel.service.interception;
