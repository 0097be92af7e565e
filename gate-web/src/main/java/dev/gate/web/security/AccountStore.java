package dev.gate.web.security;

import dev.gate.api.GatePausedException;
import dev.gate.app.Accounts;
import dev.gate.app.Account;
import jakarta.ejb.EJB;
import jakarta.ejb.EJBException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Checks a name and password against the gate's accounts. A PBKDF2 check is deliberately slow, so a check that
 * passed is remembered (by a SHA-256 of name and password, never the password) for as long as the account's stored
 * hash stays what it was: the remembered sign-in is confirmed by a cheap read of the account at least once a minute
 * ({@link #confirmRemembered}, every {@link #CONFIRM_EVERY} off the request path; on the request path only when that
 * has not run), and forgotten when the account is gone or its hash changed, so a removed or changed account loses it
 * within the minute on every server. The password is derived again only then: an account's requests never wait at
 * each minute for a derivation. Within a minute of its last confirmation it is trusted even while the database is
 * unavailable; past it, or for a password not remembered, an unavailable database means the credentials cannot be
 * checked: neither passed nor failed.
 * <p>
 * Only one slow check of an account runs at a time (the others wait for it and then find it remembered), a name
 * with no account costs a check as well (timing does not tell which names exist), a wrong password leaves the right
 * one remembered, and a hash made with weaker parameters is replaced at the account's next successful check.
 */
@ApplicationScoped
public class AccountStore {

    static final long REMEMBER_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** How often remembered sign-ins are confirmed against the accounts (those confirmed longer ago than this). */
    static final Duration CONFIRM_EVERY = Duration.ofSeconds(20);

    @EJB
    Accounts accounts;

    @Inject
    Passwords passwords;

    /** What a check of credentials found. */
    public sealed interface Check {
        /** The account exists and the password is its own. */
        record Passed(Account account) implements Check {
        }

        /** No such account, or a wrong password: 401 (which of the two is for the back-off, never for the client). */
        record Failed(boolean noSuchAccount) implements Check {
        }

        /** The accounts could not be read (the database is unavailable) and nothing fresh is remembered: 503. */
        record Unchecked(String why) implements Check {
        }

        /**
         * Too many failed sign-ins lately, for this name or for unknown names from this address ({@link FailedSignIns}):
         * not checked; try again after {@code retryAfter} (429).
         */
        record Held(Duration retryAfter) implements Check {

            /** The wait in whole seconds, rounded up, at least 1 (Retry-After's unit). */
            public long retryAfterSeconds() {
                return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
            }
        }
    }

    private record Remembered(Account account, String secretDigest, long atNanos) {
    }

    private static final Logger LOG = Logger.getLogger(AccountStore.class.getName());

    private final Map<String, Remembered> remembered = new ConcurrentHashMap<>();
    // one slow check per account at a time; striped so that no input grows it
    private final ReentrantLock[] checking = new ReentrantLock[64];

    {
        for (int i = 0; i < checking.length; i++) {
            checking[i] = new ReentrantLock();
        }
    }

    LongSupplier nanoTime = System::nanoTime;
    final FailedSignIns failures = new FailedSignIns(() -> nanoTime.getAsLong());

    /** Checks the credentials as presented from {@code address} (the client's IP address). */
    public Check check(String name, String password, String address) {
        String digest = sha256(name + "\u0000" + password);
        Optional<Duration> held = failures.holdFor(name, address, digest);
        if (held.isPresent()) {
            return new Check.Held(held.get());
        }
        Check check = checked(name, password, digest);
        if (check instanceof Check.Failed failed) {
            failures.failed(name, address, failed.noSuchAccount()).ifPresent(pause -> LOG.warning(() -> "sign-in: "
                    + (pause.account() != null ? FailedSignIns.PER_ACCOUNT + " failed sign-ins as '" + pause.account()
                    + "' from " + pause.address() + " within a minute: that address is refused for that name for "
                    + pause.length().toSeconds() + " s"
                    : FailedSignIns.PER_ADDRESS + " names that are no account tried from " + pause.address()
                    + " within a minute: that address is refused for " + pause.length().toSeconds() + " s, but for"
                    + " credentials that signed in from it within " + FailedSignIns.PROVEN_FOR.toHours() + " h")));
        } else if (check instanceof Check.Passed) {
            failures.succeeded(name, address, digest);
        }
        return check;
    }

    Check check(String name, String password) {
        return checked(name, password, sha256(name + "\u0000" + password));
    }

    private Check checked(String name, String password, String digest) {
        Check known = rememberedCheck(name, digest);
        if (known != null) {
            return known;
        }
        ReentrantLock lock = checking[Math.floorMod(name.hashCode(), checking.length)];
        lock.lock();
        try {
            known = rememberedCheck(name, digest); // the check this one waited for may have been the same
            return known != null ? known : slowCheck(name, password, digest);
        } finally {
            lock.unlock();
        }
    }

    private Check rememberedCheck(String name, String digest) {
        Remembered known = remembered.get(name);
        if (known != null && nanoTime.getAsLong() - known.atNanos() < REMEMBER_NANOS
                && known.secretDigest().equals(digest)) {
            return new Check.Passed(known.account());
        }
        return null;
    }

    /**
     * Confirms each sign-in remembered longer ago than {@link #CONFIRM_EVERY}: one read of its account; the same hash
     * renews it (with the account's roles as they are now), none or another forgets it. Run off the request path
     * every {@link #CONFIRM_EVERY} ({@link RememberedSignIns}); while the accounts cannot be read nothing is renewed
     * and each runs out a minute after its last confirmation.
     */
    public void confirmRemembered() {
        long now = nanoTime.getAsLong();
        for (Remembered known : List.copyOf(remembered.values())) {
            if (now - known.atNanos() >= CONFIRM_EVERY.toNanos()) {
                try {
                    confirmed(known.account().name(), known, accounts.find(known.account().name()));
                } catch (GatePausedException | EJBException e) {
                    LOG.fine(() -> "remembered sign-ins not confirmed now: " + e.getMessage());
                    return;
                }
            }
        }
    }

    /** Renews {@code known} when the account still has its hash, else forgets it; the renewed sign-in, if any. */
    private Remembered confirmed(String name, Remembered known, Optional<Account> now) {
        if (now.isPresent() && now.get().passwordHash().equals(known.account().passwordHash())) {
            Remembered renewed = new Remembered(now.get(), known.secretDigest(), nanoTime.getAsLong());
            return remembered.replace(name, known, renewed) ? renewed : null;
        }
        remembered.remove(name, known);
        return null;
    }

    private Check slowCheck(String name, String password, String digest) {
        Optional<Account> account;
        try {
            account = accounts.find(name);
        } catch (GatePausedException e) {
            return new Check.Unchecked(e.getMessage());
        } catch (EJBException e) {
            // the container could not even start the lookup's transaction: the database is out of reach
            return new Check.Unchecked("accounts could not be read: " + e.getMessage());
        }
        Remembered known = remembered.get(name);
        if (known != null && known.secretDigest().equals(digest)) {
            // remembered, but not confirmed within the minute: the read confirms it unless the hash changed
            Remembered renewed = confirmed(name, known, account);
            if (renewed != null) {
                return new Check.Passed(renewed.account());
            }
        }
        if (account.isEmpty()) {
            passwords.spendACheck(password);
            return new Check.Failed(true);
        }
        if (!passwords.matches(password, account.get().passwordHash())) {
            return new Check.Failed(false); // what is remembered of the right password stays
        }
        Account passed = upgraded(account.get(), password);
        remembered.put(name, new Remembered(passed, digest, nanoTime.getAsLong()));
        return new Check.Passed(passed);
    }

    /** The account with its hash made again at today's parameters when it was made with weaker ones. */
    private Account upgraded(Account account, String password) {
        if (!passwords.outdated(account.passwordHash())) {
            return account;
        }
        Account stronger = new Account(account.name(), passwords.hash(password), account.roles());
        try {
            if (accounts.replaceHash(account.name(), account.passwordHash(), stronger.passwordHash())) {
                LOG.info(() -> "account " + account.name() + ": password hash upgraded to PBKDF2 at "
                        + Passwords.ITERATIONS + " iterations");
                return stronger;
            }
        } catch (GatePausedException | EJBException e) {
            LOG.fine(() -> "account " + account.name() + ": hash not upgraded now (" + e.getMessage() + ")");
        }
        return account; // changed meanwhile, or not written: the next sign-in tries again
    }

    /** The account as the database has it now (a page session's periodic re-check); nothing remembered is used. */
    public Optional<Account> current(String name) throws GatePausedException {
        return accounts.find(name);
    }

    /** An account changed: forget what was remembered of it. */
    public void forget(String name) {
        remembered.remove(name);
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
