package dev.gate.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Calls gathered into one group of a {@link JoinGroups}: a known group, for the tests of what a group does. */
final class Gathering {

    private Gathering() {
    }

    /**
     * {@code calls}, each from a thread of its own, gathered in that order into {@code group} of {@code groups} (its
     * leader held until all have come), then {@code before} runs and they go as one group; their answers, in order.
     */
    static <T> List<T> together(JoinGroups<?, ?> groups, String group, List<Callable<T>> calls, Runnable before)
            throws Exception {
        CountDownLatch hold = new CountDownLatch(1);
        groups.holdLeaders(hold);
        ExecutorService callers = Executors.newFixedThreadPool(calls.size());
        try {
            List<Future<T>> answers = new ArrayList<>();
            for (int i = 0; i < calls.size(); i++) {
                answers.add(callers.submit(calls.get(i)));
                int n = i + 1;
                GateCopies.await(n + " calls gathered", Duration.ofSeconds(10), () -> groups.waiting(group) == n);
            }
            before.run();
            hold.countDown();
            groups.holdLeaders(null);
            List<T> got = new ArrayList<>();
            for (Future<T> f : answers) {
                try {
                    got.add(f.get(30, TimeUnit.SECONDS));
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof Exception cause ? cause : e;
                }
            }
            return got;
        } finally {
            callers.shutdownNow();
        }
    }
}
