/**
 * The backfill jobs as operators run them: start with checked parameters, stop, restart from the last checkpoint,
 * list with progress (items done of all, current rate, time left). {@link dev.gate.batch.jobs.BackfillJobs}
 * implements the application's {@link dev.gate.app.Backfills}, which the HTTP API and the status page use;
 * {@link dev.gate.batch.jobs.BackfillRequest} is a plain rule.
 */
package dev.gate.batch.jobs;
