package dev.gate.wait;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Watches on calls (long-polls, dedupe joiners on a shared call): each completes when the call leaves WAITING,
 * with the call as it left ({@code T}) when the news carried it whole (a grant made here), else with null: the
 * watcher reads it. Several polls of one call share one future. A poll that gives up simply stops listening; the
 * future goes when the call leaves WAITING. Futures complete on the executor given, never on the thread that brings
 * the news (the slot loop, the grant listener, housekeeping): what a poll does next (read the call, render it) must
 * not hold them.
 */
public final class StateWatches<T> {

    private final Map<Long, CompletableFuture<T>> byCall = new ConcurrentHashMap<>();
    private final Executor completions;

    public StateWatches(Executor completions) {
        this.completions = completions;
    }

    public CompletableFuture<T> watch(long callId) {
        return byCall.computeIfAbsent(callId, id -> new CompletableFuture<>());
    }

    /** These calls have left WAITING (granted, or ended); whoever watched them reads them. */
    public void leftWaiting(Collection<Long> callIds) {
        for (Long id : callIds) {
            left(id, null);
        }
    }

    /** This call has left WAITING, and {@code as} is what it became: its watchers need not read it. */
    public void left(long callId, T as) {
        CompletableFuture<T> f = byCall.remove(callId);
        if (f != null) {
            try {
                completions.execute(() -> f.complete(as));
            } catch (RejectedExecutionException shutDown) {
                f.complete(as); // the instance is stopping: nothing else runs on this thread any more
            }
        }
    }

    public Set<Long> callIds() {
        return Set.copyOf(byCall.keySet());
    }
}
