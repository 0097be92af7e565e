/**
 * Persistence: the explicit SQL that locks, picks and counts (one small class per concern, each statement written
 * out because its locking or index use matters), short local transactions, and the JPA entities for plain
 * configuration rows. All times are taken from the database ({@code now()}/{@code clock_timestamp()}), never from
 * this JVM.
 *
 * <p><b>Lock order, everywhere:</b> a limit's slot row ({@code gate_slot}) before any of its call rows
 * ({@code gate_call}); a transaction that needs only call rows (a dedupe joiner: {@code FOR SHARE}; cancel, renew,
 * expiry) takes no slot row after them. One exception: the fast path ({@link dev.gate.store.Joins#joinAndGrant},
 * and a group join, {@link dev.gate.store.GroupJoins#joinGroupAndGrant}) inserts its call rows, then takes the slot
 * row; those rows are invisible to every other transaction until commit, so nobody can wait for them. The grant
 * takes the slot row with {@code SKIP LOCKED} and never waits for it; an outcome that moves the cool-down
 * ({@link dev.gate.store.CoolDowns}) locks the slot row before the call row. Every transaction
 * ({@link dev.gate.store.Tx}) runs at READ COMMITTED with {@code lock_timeout} 200 ms and {@code statement_timeout}
 * 500 ms, under the 600 ms network timeout: a lock held too long elsewhere is {@link dev.gate.store.StoreBusy}, never
 * an outage.
 */
package dev.gate.store;
