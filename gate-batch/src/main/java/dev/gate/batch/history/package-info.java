/**
 * The {@code backfill-history} job: walks symbols x days ({@link dev.gate.batch.history.HistoryRange}), fetches each
 * day's history from the vendor through the gate (BACKFILL unless told otherwise) and writes it to
 * {@code gate_backfill_result} in the chunk's transaction, with the checkpoint: a stopped or cut job restarts at its
 * last checkpoint, no item written twice, none skipped.
 */
package dev.gate.batch.history;
