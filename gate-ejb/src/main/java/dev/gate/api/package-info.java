/**
 * The published API, the only package of the EJB client jar: {@link dev.gate.api.Gate} (join the line, wait for
 * the grant, report the vendor's answer) and {@link dev.gate.api.GateLimits} (declare limits), their values
 * ({@link dev.gate.api.Permit}, {@link dev.gate.api.CallOptions}, {@link dev.gate.api.LimitSpec}, {@link
 * dev.gate.api.LimitStatus}, {@link dev.gate.api.Outcome}) and their typed errors (paused, busy, timed out,
 * ended, deadline, unknown or invalid limit). Everything here crosses deployments by value.
 */
package dev.gate.api;
