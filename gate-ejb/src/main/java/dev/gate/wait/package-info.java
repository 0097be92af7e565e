/**
 * The in-memory side of waiting. {@link dev.gate.wait.Waiters}: one future per call that a caller of this instance
 * blocks on until its grant (and the calls whose callers were told "no", for the orphan sweep). {@link
 * dev.gate.wait.StateWatches}: futures that complete when a watched call leaves WAITING (long-polls, dedupe
 * joiners). It decides nothing: grants are decided and committed in the database, and only then are these futures
 * completed.
 */
package dev.gate.wait;
