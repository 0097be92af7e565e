/**
 * The container adapters: Liquibase at deployment ({@link dev.gate.ejb.Schema}), the plain parts of the line wired to
 * the server's datasource ({@link dev.gate.ejb.Line}), the slot loop on the managed scheduler
 * ({@link dev.gate.ejb.SlotLoop}), and the business views ({@link dev.gate.ejb.GateBean},
 * {@link dev.gate.ejb.GateStatus}). They decide nothing: the rules live in {@code dev.gate.line}.
 */
package dev.gate.ejb;
