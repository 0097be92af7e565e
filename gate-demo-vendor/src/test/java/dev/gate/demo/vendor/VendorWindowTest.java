package dev.gate.demo.vendor;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VendorWindowTest {

    private static final long S = 1_000_000_000L;

    @Test
    void allowsTheLimitInAnyWindowAndTellsWhenAPlaceFrees() {
        VendorWindow w = new VendorWindow(3, Duration.ofSeconds(1));
        assertTrue(w.admit(0).accepted());
        assertTrue(w.admit(S / 10).accepted());
        assertTrue(w.admit(2 * S / 10).accepted());
        VendorWindow.Verdict refused = w.admit(3 * S / 10);
        assertFalse(refused.accepted());
        assertEquals(1, refused.retryAfterSeconds(), "the first place frees at 1.0 s: 0.7 s away, rounded up");
        assertTrue(w.admit(S).accepted(), "the first send left the window");
        assertEquals(4, w.worstWindow(), "requests received in one window, the refused one included");
    }

    @Test
    void countsAnItemAnsweredTwice() {
        VendorCounters c = new VendorCounters(10, Duration.ofSeconds(1));
        c.admit("history/A/2024-01-01", 0);
        c.admit("history/A/2024-01-02", 1);
        c.admit("history/A/2024-01-01", 2);
        c.admit("quote/A", 3);
        assertEquals(2, c.answered("history/"));
        assertEquals(1, c.answeredTwice("history/"));
        assertEquals(4, c.requests());
    }

    @Test
    void aRefusalsLogLineNamesTheRequestsBeforeItNewestFirst() {
        RecentRequests recent = new RecentRequests(2);
        assertEquals("", recent.received("quote/A", 0));
        recent.received("snapshot/s1", S / 10);
        recent.received("history/A/2024-01-01", 3 * S / 10);
        assertEquals("history/A/2024-01-01 -100, snapshot/s1 -300", recent.received("quote/B", 4 * S / 10),
                "the last two kept, each with how long before this one it came");
    }
}
