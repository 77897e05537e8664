/** The ETL → train → infer pipeline as one durable workflow. */
package dev.keel.workflows.pipeline;
