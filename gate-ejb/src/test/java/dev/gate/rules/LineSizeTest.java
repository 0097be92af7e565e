package dev.gate.rules;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A line's size: the caps a join meets, and the declarations that make no sense. */
class LineSizeTest {

    @Test
    void aJoinMeetsTheLinesCapThenTheProgramsCap() {
        LineSize size = new LineSize(100, 10, 1000);
        assertNull(size.capMet(99, 9));
        assertEquals(LineSize.Cap.LINE, size.capMet(100, 0), "the whole line first");
        assertEquals(LineSize.Cap.PROGRAM, size.capMet(50, 10));
        assertEquals(LineSize.Cap.LINE, LineSize.DEFAULT.capMet(10_000, 0));
        assertEquals(10_000, LineSize.DEFAULT.perProgram(), "by default one program may fill the line");
        assertNull(LineSize.DEFAULT.capMet(9_999, 9_999));
    }

    @Test
    void capsOutOfRangeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LineSize(0, null, 1));
        assertThrows(IllegalArgumentException.class, () -> new LineSize(10, 11, 1), "a program's cap in the line's");
        assertThrows(IllegalArgumentException.class, () -> new LineSize(10, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new LineSize(10, null, 0));
    }
}
