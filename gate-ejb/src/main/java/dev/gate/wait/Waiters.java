package dev.gate.wait;

import dev.gate.api.GateException;
import dev.gate.domain.Grant;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The callers of this instance waiting for their calls, by call id; and the orphans: calls whose caller was told
 * anything but a grant, which must leave the line (or, if granted meanwhile, end) and never be granted to nobody.
 */
public final class Waiters {

    private final Map<Long, CompletableFuture<Grant>> byCall = new ConcurrentHashMap<>();
    // calls whose caller was told "not granted": any still WAITING or GRANTED must end, not be granted to nobody
    private final Set<Long> abandoned = ConcurrentHashMap.newKeySet();
    // per owner (this instance, or a program over HTTP): the keys of its tries whose answer was lost
    private final Map<String, Set<String>> unansweredTries = new ConcurrentHashMap<>();

    /** Registers a waiter; call it before the call's row is committed so that no grant can come first. */
    public CompletableFuture<Grant> register(long callId) {
        return byCall.computeIfAbsent(callId, id -> new CompletableFuture<>());
    }

    /**
     * Tells the waiter (if it still waits) that its call was granted; the grant is already committed. A told waiter
     * is no longer a waiter here: its lease is not renewed any more.
     */
    public void granted(Grant grant) {
        CompletableFuture<Grant> f = byCall.remove(grant.callId());
        if (f != null) {
            f.complete(grant);
        }
    }

    /** Tells the waiter that its call left the line without a grant. */
    public void ended(long callId, GateException why) {
        CompletableFuture<Grant> f = byCall.remove(callId);
        if (f != null) {
            abandoned.add(callId);
            f.completeExceptionally(why);
        }
    }

    /**
     * Tells every waiter the same thing (the database is gone, the gate is stopping). Their calls have no waiter
     * any more: the orphan sweep takes them out of the line once the database answers.
     */
    public void endAll(GateException why) {
        for (Long id : Set.copyOf(byCall.keySet())) {
            ended(id, why);
        }
    }

    /** The waiter leaves; unless it was granted, its call (if still waiting) is now abandoned. */
    public void forget(long callId) {
        if (byCall.remove(callId) != null) {
            abandoned.add(callId);
        }
    }

    /** The call has ended in the table (cancelled, left): its waiter goes, and nothing is left to sweep. */
    public void drop(long callId) {
        byCall.remove(callId);
    }

    /** The caller was told its call is not granted, but the call could not be ended now: the sweep ends it. */
    public void orphaned(long callId) {
        byCall.remove(callId);
        abandoned.add(callId);
    }

    /**
     * A try (or a free line's grant) of {@code owner}'s, made here, whose database answer was lost: it may have made a
     * grant nobody knows of.
     */
    public void unansweredTry(String owner, String key) {
        unansweredTries.computeIfAbsent(owner, o -> ConcurrentHashMap.newKeySet()).add(key);
    }

    /** The keys of tries whose answer was lost, not yet swept, per owner. */
    public Map<String, Set<String>> unansweredTries() {
        Map<String, Set<String>> copy = new java.util.HashMap<>();
        unansweredTries.forEach((owner, keys) -> {
            if (!keys.isEmpty()) {
                copy.put(owner, Set.copyOf(keys));
            }
        });
        return copy;
    }

    /** These tries' grants (if they made any) are ended. */
    public void triesSwept(String owner, Set<String> keys) {
        Set<String> left = unansweredTries.get(owner);
        if (left != null) {
            left.removeAll(keys);
        }
    }

    /** Calls whose callers were told they were not granted; some may still be WAITING or GRANTED in the table. */
    public Set<Long> abandoned() {
        return Set.copyOf(abandoned);
    }

    /** These abandoned calls are out of the line now. */
    public void swept(Collection<Long> callIds) {
        abandoned.removeAll(callIds);
    }

    /** The calls that have a live waiter here: the ones whose leases this instance renews. */
    public Set<Long> callIds() {
        return Set.copyOf(byCall.keySet());
    }
}
