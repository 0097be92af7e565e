/**
 * The container adapters: Liquibase at deployment ({@link dev.gate.ejb.Schema}), this server's gate instance on the
 * managed scheduler ({@link dev.gate.ejb.SlotLoop}), and the business views ({@link dev.gate.ejb.GateBean},
 * {@link dev.gate.ejb.GateStatus}). They decide nothing: the rules live in {@code dev.gate.line}, the instance in
 * {@code dev.gate.engine}.
 */
package dev.gate.ejb;
