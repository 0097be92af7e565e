package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import dev.gate.api.LimitStatus;
import dev.gate.api.RuleUse;
import dev.gate.rules.CalendarBlocks;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A limit on the vendor's fixed blocks, on the real clock and two gate copies: a block never holds more than its
 * calls, and when a block ends the calls it held back go at once, not a window after the sends before them.
 */
class AlignedWindowTest extends OnTwoCopies {

    @Test
    void aroundABlocksEndTheFirstCallsOfTheNextGoAtOnceAndNoBlockHoldsMoreThanItsCalls() throws Exception {
        String limit = "blocks";
        CalendarBlocks blocks = new CalendarBlocks(Duration.ofSeconds(10), ZoneOffset.UTC, LocalTime.MIDNIGHT);
        // 5 per block of 10 s, up to 5 back to back: a block's calls all go at its start, the rest wait for the next
        a.limits().put(limit, LimitSpec.of(5, Duration.ofSeconds(10)).withAligned(ZoneOffset.UTC, LocalTime.MIDNIGHT)
                .withBurst(5));
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            Engine copy = i % 2 == 0 ? a : b;
            tickets.add(copy.callers().join(limit, CallClass.SCHEDULED, "timer", CallOptions.NONE));
        }
        LimitStatus midway = a.limits().status(limit).orElseThrow();
        for (int i = 0; i < tickets.size(); i++) {
            (i % 2 == 0 ? a : b).callers().await(tickets.get(i), Duration.ofSeconds(40));
        }
        // a send within the receipt margin (50 ms: half a percent of 10 s) before a block's start may reach the vendor
        // in either block: the gate counts it in both, and its beat turns with the later one
        Duration margin = Duration.ofMillis(50);
        Map<Instant, List<Instant>> byBlock = new TreeMap<>(); // by the send's own time
        Map<Instant, List<Instant>> byLatestBlock = new TreeMap<>(); // by the latest block it may reach the vendor in
        for (Instant sent : copies.sends(limit)) {
            byBlock.computeIfAbsent(blocks.at(sent).start(), k -> new ArrayList<>()).add(sent);
            byLatestBlock.computeIfAbsent(blocks.at(sent.plus(margin)).start(), k -> new ArrayList<>()).add(sent);
        }
        List<String> figures = new ArrayList<>();
        for (Map.Entry<Instant, List<Instant>> block : byLatestBlock.entrySet()) {
            figures.add(block.getValue().size() + " sends, the first "
                    + Duration.between(block.getKey(), block.getValue().get(0)).toMillis() + " ms after its start");
        }
        System.out.println("aligned: 12 calls at 5 per block of 10 s: " + figures + "; by the sends' own time "
                + byBlock.values().stream().map(List::size).toList());
        for (Map<Instant, List<Instant>> view : List.of(byBlock, byLatestBlock)) {
            view.forEach((start, sends) -> assertTrue(sends.size() <= 5, "block " + start + " held " + sends));
        }
        boolean first = true;
        for (Map.Entry<Instant, List<Instant>> block : byLatestBlock.entrySet()) {
            Duration late = Duration.between(block.getKey(), block.getValue().get(0));
            if (!first) { // a block after the one the calls joined in: its first send goes at its start
                assertTrue(late.compareTo(Duration.ofSeconds(1)) < 0, "the first send of block " + block.getKey()
                        + " went " + late + " after its start (the beat's gap is 2 s): " + figures);
            }
            first = false;
        }
        // the blocks after the first are full until the calls run out (the first: as many as its rest allowed)
        List<List<Instant>> blocksInOrder = new ArrayList<>(byLatestBlock.values());
        for (int i = 1; i < blocksInOrder.size() - 1; i++) {
            assertEquals(5, blocksInOrder.get(i).size(), "block " + i + " was not filled: " + figures);
        }
        assertEquals(12, blocksInOrder.stream().mapToInt(List::size).sum());
        RuleUse own = midway.getWindows().get(0);
        assertEquals("UTC", own.getAlignedZone());
        assertTrue(own.getResetsAt() != null && !own.getResetsAt().isBefore(midway.getAsOf()), own.getResetsAt()
                + " as of " + midway.getAsOf());
        assertTrue(own.getUsed() <= 5, "the status counts the block's sends: " + own.getUsed());
    }

    @Test
    void aLimitsStatusCountsItsBlockAloneAndTheListSaysTheSame() throws Exception {
        String limit = "block-status";
        CalendarBlocks blocks = new CalendarBlocks(Duration.ofSeconds(10), ZoneOffset.UTC, LocalTime.MIDNIGHT);
        a.limits().put(limit, LimitSpec.of(5, Duration.ofSeconds(10)).withAligned(ZoneOffset.UTC, LocalTime.MIDNIGHT));
        // a send half a second before this block's start: inside a sliding window of 10 s, outside the block
        GateCopies.await("a block under way by 1 to 8 s", Duration.ofSeconds(12), () -> {
            Duration in = Duration.between(blocks.at(java.time.Instant.now()).start(), java.time.Instant.now());
            return in.compareTo(Duration.ofSeconds(1)) > 0 && in.compareTo(Duration.ofSeconds(8)) < 0;
        });
        java.time.Instant start = blocks.at(java.time.Instant.now()).start();
        copies.logSends(limit, 1, Duration.between(start, java.time.Instant.now()).plusMillis(500), Duration.ZERO);
        LimitStatus one = b.limits().status(limit).orElseThrow();
        LimitStatus listed = b.limits().status().stream().filter(s -> s.getName().equals(limit)).findFirst()
                .orElseThrow();
        assertEquals(0, one.getUsedInWindow(), "the block holds nothing yet: " + one.getUsedInWindow());
        assertEquals(listed.getUsedInWindow(), one.getUsedInWindow(), "one figure, one way of counting");
    }
}
