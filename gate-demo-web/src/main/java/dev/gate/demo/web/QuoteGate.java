package dev.gate.demo.web;

import dev.gate.api.CallClass;
import dev.gate.api.GatedClientFilter;

import java.time.Duration;

/** The gate's client filter for the quotes: a person waits for each, so each is INTERACTIVE in the demo's limit. */
public class QuoteGate extends GatedClientFilter {

    /** The demo's limit, as the demo declares it. */
    public static final String LIMIT = "demo-vendor";

    public QuoteGate() {
        super(null, LIMIT, CallClass.INTERACTIVE, Duration.ofSeconds(10)); // a person waits ten seconds at most
    }
}
