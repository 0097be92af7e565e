package dev.gate.it.gated;

import dev.gate.api.CallClass;
import dev.gate.api.GatedClientFilter;

/** The filter as {@code @RegisterProvider} takes it: a subclass that names the limit and the class. */
public class HistoryGate extends GatedClientFilter {

    public static final String LIMIT = "it-filter-server";

    public HistoryGate() {
        super(LIMIT, CallClass.SCHEDULED);
    }
}
