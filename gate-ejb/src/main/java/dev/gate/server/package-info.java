/**
 * The container's side of one gate instance: its data source ({@link dev.gate.server.GateDataSource}), Liquibase at
 * deployment ({@link dev.gate.server.Schema}), the engine hosted on the managed scheduler
 * ({@link dev.gate.server.SlotLoop}) and its counters on the server's Micrometer registry
 * ({@link dev.gate.server.GateMeters}). It reaches the line only through {@code dev.gate.engine}; the use cases in
 * {@code dev.gate.app} reach the engine through it.
 */
package dev.gate.server;
