package dev.gate.rules;

import dev.gate.dev.SendLog;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReceiptMarginTest {

    @Test
    void theDefaultIsHalfAPercentOfTheWindowAtMost100Ms() {
        ReceiptMargin m = ReceiptMargin.byDefault();
        assertEquals(Duration.ofMillis(5), m.forWindow(Duration.ofSeconds(1)));
        assertEquals(Duration.ofMillis(50), m.forWindow(Duration.ofSeconds(10)));
        assertEquals(Duration.ofMillis(100), m.forWindow(Duration.ofMinutes(1)));
        assertEquals(Duration.ofMillis(100), m.forWindow(Duration.ofDays(1)));
    }

    @Test
    void aDeclaredMarginHoldsForEveryRuleAndZeroMeansNone() {
        assertEquals(Duration.ofMillis(250), ReceiptMargin.of(Duration.ofMillis(250)).forWindow(Duration.ofDays(1)));
        LimitRules rules = new LimitRules(List.of(Pace.of(10, 1_000), Pace.of(600, 60_000)), Duration.ZERO);
        assertEquals(rules, ReceiptMargin.of(Duration.ZERO).widen(rules));
        assertThrows(IllegalArgumentException.class, () -> ReceiptMargin.of(Duration.ofMillis(-1)));
    }

    @Test
    void theWidenedRulesSlowTheBeatByTheMarginsShare() {
        LimitRules rules = LimitRules.of(Pace.of(60, 10_000));
        LimitRules widened = ReceiptMargin.byDefault().widen(rules);
        assertEquals(Duration.ofMillis(10_050), widened.rules().get(0).window());
        // 10.05 s / 60, rounded up to whole microseconds
        assertEquals(Duration.ofNanos(167_500_000), widened.gap());
    }

    /**
     * Greedy sends paced by the widened rules: however late each caller receives its grant, up to the margin, no
     * 10 s window counted by receipt holds more than 60 sends, and the rate is still 99.5% of the limit.
     */
    @Test
    void countedByReceiptNoWindowOverfillsWhenEveryGrantArrivesWithinTheMargin() {
        LimitRules declared = LimitRules.of(Pace.of(60, 10_000));
        LimitRules counted = ReceiptMargin.byDefault().widen(declared);
        Duration margin = ReceiptMargin.byDefault().forWindow(Duration.ofSeconds(10));
        List<Instant> sent = new ArrayList<>();
        Instant now = Instant.parse("2026-12-01T00:00:00Z");
        Instant slot = now;
        while (sent.size() < 600) {
            SlotDecision d = SlotRule.decide(counted, now, slot, nthMostRecent(sent, counted),
                    sent.isEmpty() ? Optional.empty() : Optional.of(sent.get(sent.size() - 1)), null);
            if (d.sendNow()) {
                sent.add(now);
                slot = Beat.next(d.notBefore(), now, counted.gap());
            } else {
                now = d.notBefore();
            }
        }
        // the worst case for a receipt count: the first grant of a run arrives a whole margin late, the rest at once
        List<Instant> received = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            received.add(i % 61 == 0 ? sent.get(i).plus(margin).minusNanos(1_000) : sent.get(i));
        }
        received.sort(null);
        int byReceipt = SendLog.fullestWindow(received, Duration.ofSeconds(10));
        assertTrue(byReceipt <= 60, "by receipt: " + byReceipt);
        double rate = (sent.size() - 1) / (Duration.between(sent.get(0), sent.get(sent.size() - 1)).toNanos() / 1e9);
        assertTrue(rate >= 0.99 * 6.0 && rate <= 6.0, "rate " + rate + "/s against 6/s");
    }

    private static List<Optional<Instant>> nthMostRecent(List<Instant> sent, LimitRules rules) {
        Pace p = rules.rules().get(0);
        if (sent.size() < p.calls()) {
            return List.of(Optional.empty());
        }
        Instant nth = sent.get(sent.size() - p.calls());
        return List.of(Optional.of(nth));
    }
}
