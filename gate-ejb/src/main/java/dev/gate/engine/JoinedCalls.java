package dev.gate.engine;

import dev.gate.api.CallEndedException;
import dev.gate.api.GateException;
import dev.gate.api.GateTimeoutException;
import dev.gate.api.Outcome;
import dev.gate.api.Permit;
import dev.gate.api.CallState;
import dev.gate.domain.CallRow;
import dev.gate.store.CallReads;
import dev.gate.wait.StateWatches;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A caller's waits on a call it shares rather than holds (a dedupe joiner's, for {@link Callers}): its grant, then
 * the vendor's answer the first caller reports. No grant future is registered for a joiner, so each waits on the
 * call's row: a watch ({@link StateWatches}) wakes it, and it reads the row again.
 */
final class JoinedCalls {

    private final Admission admission;
    private final CallReads reads;
    private final StateWatches<CallRow> watches;

    JoinedCalls(Admission admission, CallReads reads, StateWatches<CallRow> watches) {
        this.admission = admission;
        this.reads = reads;
        this.watches = watches;
    }

    /** Waits for the vendor's answer to a call (a joiner's way to share the first caller's outcome). */
    Outcome awaitOutcome(long callId, Duration maxWait) throws GateException {
        long until = System.nanoTime() + maxWait.toNanos();
        while (true) {
            CompletableFuture<CallRow> changed = watches.watch(callId);
            CallRow row = find(callId);
            if (row.outcomeStatus() != null) {
                return new Outcome(row.outcomeStatus(), row.outcomeRetryAfterSeconds() == null ? null
                        : Duration.ofSeconds(row.outcomeRetryAfterSeconds()));
            }
            if (row.state() == CallState.CANCELLED || row.state() == CallState.EXPIRED
                    || row.state() == CallState.ABANDONED) {
                throw new CallEndedException("call " + callId + " ended without an outcome: " + row.state());
            }
            waitFor(changed, until, "no outcome for call " + callId + " within " + maxWait, callId);
        }
    }

    /** A joiner waits for the shared call's grant; its permit says it joined: the first caller calls the vendor. */
    Permit awaitJoined(long callId, Duration maxWait) throws GateException {
        long until = System.nanoTime() + maxWait.toNanos();
        while (true) {
            CompletableFuture<CallRow> changed = watches.watch(callId);
            CallRow row = find(callId);
            if (row.grantedAt() != null) {
                return new Permit(row.id(), row.limit(), row.callClass(), row.enqueuedAt(), row.grantedAt(), true);
            }
            if (row.state() != CallState.WAITING) {
                throw new CallEndedException("the joined call " + callId + " ended without a grant: " + row.state());
            }
            waitFor(changed, until, "the joined call " + callId + " was not granted within " + maxWait, callId);
        }
    }

    /** The call as it is now; a call the table does not have ends its watch at once (it will never change). */
    private CallRow find(long callId) throws GateException {
        Optional<CallRow> row = admission.run(() -> reads.find(callId));
        if (row.isEmpty()) {
            watches.leftWaiting(List.of(callId));
            throw new CallEndedException("call " + callId + " is gone");
        }
        return row.get();
    }

    /** Until the call changes (a notification, or the poll), at most until {@code untilNanos}. */
    private static void waitFor(CompletableFuture<?> changed, long untilNanos, String timeoutMessage, long callId)
            throws GateException {
        long left = untilNanos - System.nanoTime();
        if (left <= 0) {
            throw new GateTimeoutException(timeoutMessage, callId);
        }
        try {
            changed.get(left, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new GateTimeoutException(timeoutMessage, callId);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CallEndedException("interrupted while waiting for call " + callId);
        }
    }
}
