package dev.gate.line;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Reads a send log the way the vendor counts it: the most sends that any window (t - window, t] holds. */
public final class WindowCount {

    private WindowCount() {
    }

    /** @param sends send times, oldest first */
    public static int fullest(List<Instant> sends, Duration window) {
        int most = 0;
        int from = 0;
        for (int i = 0; i < sends.size(); i++) {
            while (!sends.get(from).isAfter(sends.get(i).minus(window))) {
                from++;
            }
            most = Math.max(most, i - from + 1);
        }
        return most;
    }
}
