package dev.gate.web.security;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Slows down guessing, and holds what is guessed, not who shares the address. Failed sign-ins are counted per name
 * and client address together: after {@link #PER_ACCOUNT} failures of one name (an account or not) from one address
 * within a minute, that address is refused for that name for {@link #FIRST_PAUSE} without its password being
 * checked. Names that are no account are counted per address too, each name once: a program still sending a removed
 * account's name, however often, is one name, and holds only itself. After {@link #PER_ADDRESS} different such names
 * from one address within a minute (someone guessing names), that address is refused for every name except the
 * credentials that signed in rightly from it within {@link #PROVEN_FOR}: the programs already working there go on.
 * Under that hold, {@link #PER_ACCOUNT} other passwords tried for a name proven there within a minute stop its
 * credentials passing too (the hold is no quick way to guess them), and every refusal reads the same, so nothing
 * tells a name proven there from any other. Each pause of the same key that follows within {@link #FORGIVEN_AFTER}
 * doubles, up to {@link #LONGEST_PAUSE}. An address is never held for another address's failures. Plain Java, with
 * the clock given; credentials arrive as a digest of name and password, never the password.
 */
public final class FailedSignIns {

    static final int PER_ACCOUNT = 5;
    static final int PER_ADDRESS = 20;
    static final Duration WINDOW = Duration.ofMinutes(1);
    static final Duration FIRST_PAUSE = Duration.ofSeconds(15);
    static final Duration LONGEST_PAUSE = Duration.ofMinutes(15);
    static final Duration FORGIVEN_AFTER = Duration.ofMinutes(30);
    /** How long credentials that signed in rightly from an address pass its hold for names. */
    static final Duration PROVEN_FOR = Duration.ofHours(24);
    /** Keys kept at most, of each kind: past it, keys with nothing running are swept, and new ones are not kept. */
    static final int MOST_KEYS = 20_000;

    /** A pause that has started: its key (account null: the address, for names) and how long it lasts. */
    public record Pause(String account, String address, Duration length) {
    }

    private final LongSupplier nanoTime;
    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();
    // by pair: credentials that signed in rightly from that address, and the guesses at that name there under a hold
    private final Map<String, Proven> proven = new ConcurrentHashMap<>();
    private static final long SWEEP_EVERY_NANOS = 1_000_000_000L;
    private final AtomicLong lastSweep = new AtomicLong(Long.MIN_VALUE / 2);

    public FailedSignIns(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /**
     * How long this address must still wait before signing in as this account with these credentials (a digest of
     * name and password); empty when it may try now.
     */
    public Optional<Duration> holdFor(String account, String address, String credentials) {
        if (tallies.isEmpty()) {
            return Optional.empty(); // every request asks; nearly always nobody has failed lately
        }
        long now = nanoTime.getAsLong();
        String pair = pairKey(account, address);
        long forNames = remaining(addressKey(address), now);
        if (forNames > 0) {
            Proven known = proven.get(pair);
            if (known != null && known.passes(credentials, now)) {
                forNames = 0; // what is guessed is held, not the programs already working from there
            } else if (known != null) {
                known.guessed(now);
            }
        }
        long left = Math.max(remaining(pair, now), forNames);
        return left > 0 ? Optional.of(Duration.ofNanos(left)) : Optional.empty();
    }

    /**
     * A failed sign-in ({@code noSuchAccount}: the name is no account); the pause it starts, if it starts one (to be
     * logged once per burst).
     */
    public Optional<Pause> failed(String account, String address, boolean noSuchAccount) {
        long now = nanoTime.getAsLong();
        Optional<Duration> pair = count(pairKey(account, address), PER_ACCOUNT, null, now);
        Optional<Duration> names = noSuchAccount ? count(addressKey(address), PER_ADDRESS, nameId(account), now)
                : Optional.empty();
        if (pair.isPresent()) {
            return Optional.of(new Pause(account, address, pair.get()));
        }
        return names.map(length -> new Pause(null, address, length));
    }

    /**
     * A successful sign-in: that account's failures from that address are forgotten, and its credentials pass that
     * address's hold for names from now on.
     */
    public void succeeded(String account, String address, String credentials) {
        String pair = pairKey(account, address);
        tallies.remove(pair);
        long now = nanoTime.getAsLong();
        Proven known = proven.get(pair);
        if (known == null) {
            if (proven.size() >= MOST_KEYS) {
                sweep(now);
                if (proven.size() >= MOST_KEYS) {
                    return;
                }
            }
            known = proven.computeIfAbsent(pair, k -> new Proven());
        }
        known.signedIn(credentials, now); // the guesses at it stay: a success between them does not forgive them
    }

    int keys() {
        return tallies.size();
    }

    int provenKeys() {
        return proven.size();
    }

    private long remaining(String key, long now) {
        Tally t = tallies.get(key);
        return t == null ? 0 : t.pausedFor(now);
    }

    private Optional<Duration> count(String key, int most, Long name, long now) {
        Tally tally = tallies.get(key);
        if (tally == null) {
            if (tallies.size() >= MOST_KEYS) {
                sweep(now); // at most once a second: a flood of new keys does not make each failure a scan
                if (tallies.size() >= MOST_KEYS) {
                    return Optional.empty();
                }
            }
            tally = tallies.computeIfAbsent(key, k -> new Tally(most, name != null));
        }
        return tally.failed(now, name == null ? 0 : name);
    }

    private void sweep(long now) {
        long last = lastSweep.get();
        if (now - last < SWEEP_EVERY_NANOS || !lastSweep.compareAndSet(last, now)) {
            return;
        }
        tallies.values().removeIf(t -> t.forgotten(now));
        proven.values().removeIf(p -> p.forgotten(now));
    }

    private static String pairKey(String account, String address) {
        return address + "\u0000" + account;
    }

    private static String addressKey(String address) {
        return address;
    }

    /** A name as 64 bits of its SHA-256: an address's tally keeps twenty, however long the names sent. */
    private static long nameId(String name) {
        try {
            return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256")
                    .digest(name.getBytes(StandardCharsets.UTF_8))).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * One key's recent failures (the last {@code most} times; by name: each name once, at its latest time), its
     * pause and how many pauses in a row.
     */
    private static final class Tally {
        private final long[] times;
        private final long[] names;
        private int count;
        private long pausedUntil;
        private int pauses;
        private long lastFailure;

        Tally(int most, boolean byName) {
            times = new long[most];
            names = byName ? new long[most] : null;
        }

        synchronized long pausedFor(long now) {
            return Math.max(0, pausedUntil - now);
        }

        synchronized Optional<Duration> failed(long now, long name) {
            if (pauses > 0 && now - lastFailure > FORGIVEN_AFTER.toNanos()) {
                pauses = 0;
            }
            lastFailure = now;
            int slot = names == null ? -1 : indexOf(name);
            if (slot < 0) {
                slot = count < times.length ? count++ : oldest();
            }
            times[slot] = now;
            if (names != null) {
                names[slot] = name;
            }
            if (count < times.length || now - times[oldest()] > WINDOW.toNanos() || now < pausedUntil) {
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

        private int indexOf(long name) {
            for (int i = 0; i < count; i++) {
                if (names[i] == name) {
                    return i;
                }
            }
            return -1;
        }

        private int oldest() {
            int oldest = 0;
            for (int i = 1; i < count; i++) {
                if (times[i] < times[oldest]) {
                    oldest = i;
                }
            }
            return oldest;
        }

        synchronized boolean forgotten(long now) {
            return now >= pausedUntil && now - lastFailure > FORGIVEN_AFTER.toNanos();
        }
    }

    /** The credentials that last signed in rightly by one pair, when, and the guesses at that name under a hold. */
    private static final class Proven {
        private String credentials;
        private long at;
        private final Tally guesses = new Tally(PER_ACCOUNT, false);

        synchronized void signedIn(String credentials, long now) {
            this.credentials = credentials;
            this.at = now;
        }

        synchronized boolean passes(String credentials, long now) {
            return credentials.equals(this.credentials) && now - at < PROVEN_FOR.toNanos()
                    && guesses.pausedFor(now) == 0;
        }

        void guessed(long now) {
            guesses.failed(now, 0);
        }

        synchronized boolean forgotten(long now) {
            return now - at > PROVEN_FOR.toNanos() && guesses.forgotten(now);
        }
    }
}
