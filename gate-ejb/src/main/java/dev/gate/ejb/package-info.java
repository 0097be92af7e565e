/**
 * The container's side: Liquibase at deployment ({@link dev.gate.ejb.Schema}), this server's gate instance hosted on
 * the managed scheduler ({@link dev.gate.ejb.SlotLoop}), and the remote views ({@link dev.gate.ejb.GateBean},
 * {@link dev.gate.ejb.GateLimitsBean}), thin adapters over the use cases in {@code dev.gate.app}. They decide
 * nothing: the rules live in {@code dev.gate.rules}, the instance in {@code dev.gate.engine}.
 */
package dev.gate.ejb;
