/**
 * The published API, the only package of the EJB client jar: {@link dev.gate.client.Gate} (join the line, wait for
 * the grant, report the vendor's answer) and {@link dev.gate.client.GateLimits} (declare limits), their values
 * ({@link dev.gate.client.Permit}, {@link dev.gate.client.CallOptions}, {@link dev.gate.client.LimitSpec}, {@link
 * dev.gate.client.LimitStatus}, {@link dev.gate.client.Outcome}) and their typed errors (paused, busy, timed out,
 * ended, deadline, unknown or invalid limit). Everything here crosses deployments by value.
 */
package dev.gate.client;
