/**
 * The remote EJB views ({@link dev.gate.ejb.GateBean}, {@link dev.gate.ejb.GateLimitsBean}): thin adapters over the
 * use cases in {@code dev.gate.app}, like the web tier's resources. They decide nothing.
 */
package dev.gate.ejb;
