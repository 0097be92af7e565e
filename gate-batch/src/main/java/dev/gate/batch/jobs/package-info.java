/**
 * The backfill jobs as operators run them: start with checked parameters, stop, restart from the last checkpoint,
 * list with progress (items done of all, current rate, time left). {@link dev.gate.batch.jobs.BackfillJobs} is the
 * one entry for the HTTP API and the status page; {@link dev.gate.batch.jobs.BackfillRequest} and
 * {@link dev.gate.batch.jobs.Progress} are plain rules.
 */
package dev.gate.batch.jobs;
