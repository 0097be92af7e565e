/**
 * One gate instance in plain Java: the slot loop, the lease heartbeat, the grant listener and the waiters, over a
 * {@link javax.sql.DataSource} and a {@link java.util.concurrent.ScheduledExecutorService} it is given. The EJBs
 * host it with the container's datasource and managed executor; tests and the benchmark run several copies side by
 * side with their own pools. It decides nothing itself: the rules are in {@code dev.gate.rules}, the locking in
 * {@code dev.gate.store}.
 */
package dev.gate.engine;
