/**
 * Persistence: the explicit SQL that locks, picks and counts (one small class per concern, each statement written
 * out because its locking or index use matters), short local transactions, and the JPA entities for plain
 * configuration rows. All times are taken from the database ({@code clock_timestamp()}), never from this JVM.
 */
package dev.gate.store;
