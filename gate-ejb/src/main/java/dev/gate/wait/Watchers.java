package dev.gate.wait;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Long-polls on calls that a program (not this instance) owns: each watch completes when the call leaves WAITING.
 * Several polls of one call share one future. A poll that gives up simply stops listening; the future goes when
 * the call settles.
 */
public final class Watchers {

    private final Map<Long, CompletableFuture<Void>> byCall = new ConcurrentHashMap<>();

    public CompletableFuture<Void> watch(long callId) {
        return byCall.computeIfAbsent(callId, id -> new CompletableFuture<>());
    }

    /** These calls have left WAITING (granted, or ended). */
    public void settled(Collection<Long> callIds) {
        for (Long id : callIds) {
            CompletableFuture<Void> f = byCall.remove(id);
            if (f != null) {
                f.complete(null);
            }
        }
    }

    public Set<Long> callIds() {
        return Set.copyOf(byCall.keySet());
    }
}
