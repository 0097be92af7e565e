/**
 * What a vendor's HTTP answer says of its rate limit ({@link dev.gate.headers.VendorHeaders}): read once, here, for
 * every program that reports answers to the gate, inside the server ({@code @Gated}, its client filter) or outside it
 * (gate-client). Plain Java, no dependencies.
 */
package dev.gate.headers;
