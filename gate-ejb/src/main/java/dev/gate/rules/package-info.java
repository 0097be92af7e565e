/**
 * The line's rules in plain Java: pacing on a beat, the window cap, the decision whether a slot may be used now.
 * No container types and no clock of their own: every method is given the database's "now", so the rules are
 * unit-tested with any clock and the store and EJB layers only feed them.
 */
package dev.gate.rules;
