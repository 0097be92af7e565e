/**
 * The domain as JPA entities over the Liquibase tables (Liquibase owns the schema; Hibernate only validates it):
 * {@link dev.gate.domain.Limit} with its rules and options, its {@link dev.gate.domain.Slot} (the beat and the
 * cool-down), {@link dev.gate.domain.Call} (a place in the line and its life), {@link dev.gate.domain.Send} (the
 * send log). Plain reads and writes (status, limit admin, a call's view) go through them; the statements where
 * locking and round trips matter (join, grant, renew) stay explicit SQL in {@code dev.gate.store}.
 */
package dev.gate.domain;
