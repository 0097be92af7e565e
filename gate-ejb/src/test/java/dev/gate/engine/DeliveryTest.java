package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallState;
import dev.gate.domain.CallRow;
import dev.gate.domain.Grant;
import dev.gate.store.GrantPass;
import dev.gate.wait.StateWatches;
import dev.gate.wait.Waiters;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A pass's whole grants are delivered by the pass, not by the instance's own announcement (which can come first);
 * a pass tried again after a rollback (busy) holds only the grants of the pass that commits, so a call the rolled-back
 * pass had chosen is still announced to its watchers when another pass grants it.
 */
class DeliveryTest {

    private final StateWatches<CallRow> watches = new StateWatches<>(Runnable::run);
    private final Delivery delivery = new Delivery("here", null, new Waiters(), watches,
            new Health(paused -> { }), Tally.NONE);

    @Test
    void aRetriedPassHoldsOnlyTheGrantsOfThePassThatCommits() {
        CompletableFuture<CallRow> first = watches.watch(1);
        try (Delivery.Pending pending = delivery.pending()) {
            pending.hold(pass(1)); // rolled back: busy
            pending.hold(pass(2)); // the try that commits
            delivery.announced(List.of(1L)); // another pass (another instance) granted call 1 meanwhile
        }
        assertTrue(first.isDone(), "call 1's watchers heard of its grant");
    }

    @Test
    void aHeldGrantIsDeliveredWholeByItsPassNotEmptyByTheAnnouncement() {
        CompletableFuture<CallRow> watched = watches.watch(3);
        try (Delivery.Pending pending = delivery.pending()) {
            GrantPass pass = pass(3);
            pending.hold(pass);
            delivery.announced(List.of(3L)); // the instance's own announcement, before the pass's delivery
            assertTrue(!watched.isDone(), "not from the announcement");
            delivery.granted(pass);
        }
        assertTrue(watched.join() != null, "with the call whole");
    }

    private static GrantPass pass(long id) {
        Instant now = Instant.now();
        CallRow row = new CallRow(id, "l", CallClass.MANUAL, "web", "program:web", CallState.GRANTED, now,
                now.plusSeconds(30), now, null, null, 0);
        return new GrantPass(List.of(new Grant(id, "l", CallClass.MANUAL, "program:web", now, now, false, row)), now,
                Optional.empty(), false);
    }
}
