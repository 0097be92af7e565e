package dev.gate.web.security;

import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Slows down guessing: failed sign-ins are counted per account and client address together, and, for names that
 * are no account, per client address alone. After {@link #PER_ACCOUNT} failures for one account from one address
 * within a minute, that address is refused for that account for {@link #FIRST_PAUSE} without its password being
 * checked; after {@link #PER_ADDRESS} guesses at names from one address it is refused for every name. Each pause of
 * the same key that follows within {@link #FORGIVEN_AFTER} doubles, up to {@link #LONGEST_PAUSE}. An address is never
 * held for another address's failures, so the right password from another address works while an attacker is held;
 * and a program that keeps sending an old password holds only itself, not the other programs on its host. Plain
 * Java, with the clock given.
 */
public final class FailedSignIns {

    static final int PER_ACCOUNT = 5;
    static final int PER_ADDRESS = 20;
    static final Duration WINDOW = Duration.ofMinutes(1);
    static final Duration FIRST_PAUSE = Duration.ofSeconds(15);
    static final Duration LONGEST_PAUSE = Duration.ofMinutes(15);
    static final Duration FORGIVEN_AFTER = Duration.ofMinutes(30);
    /** Keys kept at most: past it, keys with nothing running are swept, and new ones are not counted. */
    static final int MOST_KEYS = 20_000;

    /** A pause that has started: its key and how long it lasts. */
    public record Pause(String account, String address, Duration length) {
    }

    private final LongSupplier nanoTime;
    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();
    private static final long SWEEP_EVERY_NANOS = 1_000_000_000L;
    private final AtomicLong lastSweep = new AtomicLong(Long.MIN_VALUE / 2);

    public FailedSignIns(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** How long this address must still wait before signing in as this account; empty when it may try now. */
    public Optional<Duration> holdFor(String account, String address) {
        if (tallies.isEmpty()) {
            return Optional.empty(); // every request asks; nearly always nobody has failed lately
        }
        long now = nanoTime.getAsLong();
        long left = Math.max(remaining(pairKey(account, address), now), remaining(addressKey(address), now));
        return left > 0 ? Optional.of(Duration.ofNanos(left)) : Optional.empty();
    }

    /**
     * A failed sign-in ({@code noSuchAccount}: the name is no account); the pause it starts, if it starts one (to be
     * logged once per burst).
     */
    public Optional<Pause> failed(String account, String address, boolean noSuchAccount) {
        long now = nanoTime.getAsLong();
        Optional<Duration> pair = count(pairKey(account, address), PER_ACCOUNT, now);
        Optional<Duration> alone = noSuchAccount ? count(addressKey(address), PER_ADDRESS, now) : Optional.empty();
        if (pair.isPresent()) {
            return Optional.of(new Pause(account, address, pair.get()));
        }
        return alone.map(length -> new Pause(null, address, length));
    }

    /** A successful sign-in: that account's failures from that address are forgotten. */
    public void succeeded(String account, String address) {
        tallies.remove(pairKey(account, address));
    }

    int keys() {
        return tallies.size();
    }

    private long remaining(String key, long now) {
        Tally t = tallies.get(key);
        return t == null ? 0 : t.pausedFor(now);
    }

    private Optional<Duration> count(String key, int most, long now) {
        Tally tally = tallies.get(key);
        if (tally == null) {
            if (tallies.size() >= MOST_KEYS) {
                sweep(now); // at most once a second: a flood of new keys does not make each failure a scan
                if (tallies.size() >= MOST_KEYS) {
                    return Optional.empty();
                }
            }
            tally = tallies.computeIfAbsent(key, k -> new Tally(most));
        }
        return tally.failed(now);
    }

    private void sweep(long now) {
        long last = lastSweep.get();
        if (now - last < SWEEP_EVERY_NANOS || !lastSweep.compareAndSet(last, now)) {
            return;
        }
        for (Iterator<Tally> it = tallies.values().iterator(); it.hasNext(); ) {
            if (it.next().forgotten(now)) {
                it.remove();
            }
        }
    }

    private static String pairKey(String account, String address) {
        return address + "\u0000" + account;
    }

    private static String addressKey(String address) {
        return address;
    }

    /** One key's recent failures (a ring of the last {@code most} times), its pause and how many pauses in a row. */
    private static final class Tally {
        private final long[] times;
        private int next;
        private int count;
        private long pausedUntil;
        private int pauses;
        private long lastFailure;

        Tally(int most) {
            times = new long[most];
        }

        synchronized long pausedFor(long now) {
            return Math.max(0, pausedUntil - now);
        }

        synchronized Optional<Duration> failed(long now) {
            if (pauses > 0 && now - lastFailure > FORGIVEN_AFTER.toNanos()) {
                pauses = 0;
            }
            lastFailure = now;
            times[next] = now;
            next = (next + 1) % times.length;
            count = Math.min(count + 1, times.length);
            long oldest = times[next % times.length];
            if (count < times.length || now - oldest > WINDOW.toNanos() || now < pausedUntil) {
                return Optional.empty();
            }
            Duration length = FIRST_PAUSE.multipliedBy(1L << Math.min(pauses, 20));
            if (length.compareTo(LONGEST_PAUSE) > 0) {
                length = LONGEST_PAUSE;
            }
            pauses++;
            pausedUntil = now + length.toNanos();
            count = 0; // the next pause needs a new burst
            return Optional.of(length);
        }

        synchronized boolean forgotten(long now) {
            return now >= pausedUntil && now - lastFailure > FORGIVEN_AFTER.toNanos();
        }
    }
}
