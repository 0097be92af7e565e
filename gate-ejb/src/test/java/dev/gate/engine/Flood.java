package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;

/** A program without end: keeps about {@code depth} of its calls of one class waiting on a limit until closed. */
final class Flood extends Thread implements AutoCloseable {

    private final GateCopies copies;
    private final Engine gate;
    private final String limit;
    private final String program;
    private final CallClass callClass;
    private final int depth;
    private final AtomicBoolean stopped = new AtomicBoolean();
    private volatile Exception failed;

    Flood(GateCopies copies, Engine gate, String limit, String program, CallClass callClass, int depth) {
        super("flood-" + program + "-" + limit);
        this.copies = copies;
        this.gate = gate;
        this.limit = limit;
        this.program = program;
        this.callClass = callClass;
        this.depth = depth;
    }

    /** Its calls waiting now. */
    long waiting() {
        try {
            return copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND program = ? "
                    + "AND state = 'WAITING'", limit, program);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void run() {
        try {
            while (!stopped.get()) {
                for (long w = waiting(); w < depth; w++) {
                    gate.programs().submit(program, limit, callClass, CallOptions.NONE, null);
                }
                Thread.sleep(20);
            }
        } catch (Exception e) {
            failed = e;
        }
    }

    /** Stops, and takes its waiting calls out of the line. */
    @Override
    public void close() throws Exception {
        stopped.set(true);
        join(5_000);
        gate.operators().drain(program, limit, "test");
        if (failed != null) {
            throw failed;
        }
    }
}
