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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Checks a name and password against the gate's accounts. A PBKDF2 check is deliberately slow, so a check that
 * passed is remembered for a minute (by a SHA-256 of name and password, never the password). Within that minute it
 * is trusted even while the database is unavailable; past it, or for a password not remembered, an unavailable
 * database means the credentials cannot be checked: neither passed nor failed.
 * <p>
 * Only one slow check of an account runs at a time (the others wait for it and then find it remembered), a name
 * with no account costs a check as well (timing does not tell which names exist), a wrong password leaves the right
 * one remembered, and a hash made with weaker parameters is replaced at the account's next successful check.
 */
@ApplicationScoped
public class AccountStore {

    static final long REMEMBER_NANOS = TimeUnit.MINUTES.toNanos(1);

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
