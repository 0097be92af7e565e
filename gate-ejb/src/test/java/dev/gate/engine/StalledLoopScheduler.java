package dev.gate.engine;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** A scheduler whose one-shot tasks (the slot loop's passes) never come due; periodic ones run as usual. */
final class StalledLoopScheduler extends ScheduledThreadPoolExecutor {

    StalledLoopScheduler() {
        super(1);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return super.schedule(command, 365, TimeUnit.DAYS);
    }
}
