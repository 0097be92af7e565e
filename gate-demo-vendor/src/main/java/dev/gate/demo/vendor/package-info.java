/**
 * The demo's vendor: allows N calls per window by its own receipt clock ({@link dev.gate.demo.vendor.VendorWindow}),
 * answers 429 with Retry-After beyond that, and counts requests, 429s, its worst sliding window and any item
 * fetched twice. Deployed as its own WAR at {@code /demo-vendor}.
 */
package dev.gate.demo.vendor;
