/**
 * The in-memory side of waiting: one future per call that this gate instance's callers wait on. It decides
 * nothing: grants are decided and committed in the database, and only then are these futures completed.
 */
package dev.gate.wait;
