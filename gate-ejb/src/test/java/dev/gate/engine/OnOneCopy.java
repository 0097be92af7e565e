package dev.gate.engine;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A test on one gate copy, {@link #gate}, on a fresh database. */
abstract class OnOneCopy {

    @RegisterExtension
    final GateCopies copies = new GateCopies();
    Engine gate;

    @BeforeEach
    void startOneCopy() {
        gate = copies.start(getClass().getSimpleName());
    }
}
