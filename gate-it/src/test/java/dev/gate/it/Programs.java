package dev.gate.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Programs calling at once, as the tests outside the server run them, and the wait for a gate back from a cut. */
final class Programs {

    private Programs() {
    }

    /** One call of a program: the program's number, the call's. */
    interface ProgramCall {
        void call(int program, int i) throws Exception;
    }

    /** {@code count} programs at once, each making {@code calls} calls in turn; a failure of any fails the test. */
    static void run(int count, int calls, ProgramCall call) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failed = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < count; t++) {
            int program = t;
            Thread thread = new Thread(() -> {
                try {
                    for (int i = 0; i < calls; i++) {
                        call.call(program, i);
                    }
                } catch (Exception | AssertionError e) {
                    failed.add(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join(60_000);
        }
        if (!failed.isEmpty()) {
            throw new AssertionError("a program failed", failed.get(0));
        }
    }

    /** After a database cut: the gate resumes by itself; the next test must not start during its pause. */
    static void awaitResumed(String limit) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (Api.get("ops", "/limits/" + limit).status() != 200) {
            assertTrue(System.nanoTime() < until, "the gate did not resume within 10 s");
            Thread.sleep(100);
        }
    }
}
