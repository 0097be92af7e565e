package dev.gate.engine;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/** A real scheduler that runs every one-shot task late by a random 0-{@code maxLateness}, as a busy server might. */
final class LateScheduler extends ScheduledThreadPoolExecutor {

    private final long maxLatenessNanos;

    LateScheduler(Duration maxLateness) {
        super(2);
        this.maxLatenessNanos = maxLateness.toNanos();
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        long late = (long) (ThreadLocalRandom.current().nextDouble() * maxLatenessNanos);
        return super.schedule(command, unit.toNanos(delay) + late, TimeUnit.NANOSECONDS);
    }
}
