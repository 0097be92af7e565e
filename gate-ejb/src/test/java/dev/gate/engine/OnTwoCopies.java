package dev.gate.engine;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A test on two gate copies, {@link #a} and {@link #b}, as two processes sharing one fresh database. */
abstract class OnTwoCopies {

    @RegisterExtension
    final GateCopies copies = new GateCopies();
    Engine a;
    Engine b;

    @BeforeEach
    void startTwoCopies() {
        a = copies.start(getClass().getSimpleName() + "-a");
        b = copies.start(getClass().getSimpleName() + "-b");
    }
}
