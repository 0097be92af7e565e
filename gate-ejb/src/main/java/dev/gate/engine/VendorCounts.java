package dev.gate.engine;

import dev.gate.store.Outcomes;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The operators' word on the vendor's own counts that outcomes carry: a count this limit cannot have (more than its
 * largest rule's calls, less than 0) is ignored with a WARNING, at most one a minute per limit (a vendor that always
 * answers so would otherwise write one per call); a count that starts to hold the limit is INFO (a state change, as a
 * cool-down is); any other count taken is FINE (it comes with every call).
 */
final class VendorCounts {

    private static final Logger LOG = Logger.getLogger(VendorCounts.class.getName());
    private static final long WARN_EVERY_NANOS = 60_000_000_000L;

    private final Map<String, Long> warnedAt = new ConcurrentHashMap<>();

    void heard(long callId, String program, Outcomes.VendorReport report, Outcomes.VendorTaken taken) {
        if (taken.outOfRange()) {
            long now = System.nanoTime();
            Long last = warnedAt.get(taken.limit());
            if (last == null || now - last >= WARN_EVERY_NANOS) {
                warnedAt.put(taken.limit(), now);
                LOG.warning(() -> "limit=" + taken.limit() + " call " + callId + " of " + program
                        + ": the vendor's count (remaining " + report.remaining() + ") is more than any rule of the "
                        + "limit allows (" + taken.most() + "): not this limit's count, ignored (next such warning "
                        + "in a minute at the earliest)");
            }
            return;
        }
        if (taken.newHold()) {
            LOG.info(() -> "limit=" + taken.limit() + " call " + callId + " of " + program + ": the vendor says "
                    + report.remaining() + " left for " + report.resetSeconds() + " s: the limit holds to it until "
                    + taken.heldUntil() + " (an operator's resume ends it)");
        } else if (taken.taken()) {
            LOG.fine(() -> "limit=" + taken.limit() + " call " + callId + ": the vendor says " + report.remaining()
                    + " left for " + report.resetSeconds() + " s" + (taken.explained()
                    ? ", all of it the gate's own sends: its own rules hold" : ": the limit holds to it"));
        }
    }
}
