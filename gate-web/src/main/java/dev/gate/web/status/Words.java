package dev.gate.web.status;

/** Times in words for people: "120 ms", "14 s", "1 min", "4 m 12 s", "14 min", "3 h 5 min". */
final class Words {

    private Words() {
    }

    /** A window: in seconds up to an hour ("60 s", "1 s"), else as a span. */
    static String window(long ms) {
        if (ms % 1_000 == 0 && ms <= 3_600_000) {
            return ms / 1_000 + " s";
        }
        return span(ms);
    }

    static String span(long ms) {
        if (ms < 1_000) {
            return ms + " ms";
        }
        long s = ms / 1_000;
        if (s < 60) {
            return s + " s";
        }
        if (s < 600) {
            return s % 60 == 0 ? s / 60 + " min" : s / 60 + " m " + s % 60 + " s";
        }
        long min = s / 60;
        if (min < 60) {
            return min + " min";
        }
        return min / 60 + " h " + min % 60 + " min";
    }
}
