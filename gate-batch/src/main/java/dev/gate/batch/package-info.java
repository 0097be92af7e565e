/**
 * Jakarta Batch through the gate: {@link dev.gate.batch.GatedItemProcessor} puts any chunk step's vendor call into
 * the line, one permit per item, configured by step properties ({@code gate.limit}, {@code gate.class},
 * {@code gate.maxWait}, {@code gate.dedupeKey}, {@code gate.concurrencyKey}, {@code gate.retries}, {@code gate.call});
 * a vendor's "slow down" is reported and the item goes through the line again, never around it.
 * {@link dev.gate.batch.GateProperties} holds the rules for those properties, free of container types.
 */
package dev.gate.batch;
