package dev.gate.web.status;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The page's times read as people say them. */
class WordsTest {

    @Test
    void spansReadAsPeopleSayThem() {
        assertEquals("120 ms", Words.span(120));
        assertEquals("14 s", Words.span(14_999));
        assertEquals("1 min", Words.span(60_000));
        assertEquals("4 m 12 s", Words.span(252_000));
        assertEquals("14 min", Words.span(14 * 60_000 + 5_000));
        assertEquals("3 h 5 min", Words.span((3 * 60 + 5) * 60_000L));
    }

    @Test
    void windowsReadInSecondsUpToAnHour() {
        assertEquals("60 s", Words.window(60_000));
        assertEquals("1 s", Words.window(1_000));
        assertEquals("250 ms", Words.window(250));
        assertEquals("2 h 0 min", Words.window(7_200_000));
    }
}
