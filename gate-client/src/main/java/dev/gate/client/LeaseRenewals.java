package dev.gate.client;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The leases of {@link HttpGate}'s waiting calls, renewed in the background on one daemon thread: a call that waits
 * longer than its lease must not be ended as if its program had gone.
 */
final class LeaseRenewals implements AutoCloseable {

    private final GateRequests requests;
    private final ScheduledExecutorService renewals;

    LeaseRenewals(GateRequests requests) {
        this.requests = requests;
        this.renewals = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gate-lease-renewal");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Renews call {@code id}'s lease every third of it (at most once a second) until the renewal is cancelled; each
     * renewal times out before the next is due.
     */
    ScheduledFuture<?> start(long id, Duration lease) {
        long every = Math.max(1_000, lease.toMillis() / 3);
        Duration renewalWait = Duration.ofMillis(every);
        return renewals.scheduleAtFixedRate(() -> requests.renew(id, renewalWait), every, every,
                TimeUnit.MILLISECONDS);
    }

    /** Stops the renewals (calls still waiting then end at their leases). */
    @Override
    public void close() {
        renewals.shutdownNow();
    }
}
