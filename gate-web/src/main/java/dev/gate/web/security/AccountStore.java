package dev.gate.web.security;

import dev.gate.client.GatePausedException;
import dev.gate.app.Accounts;
import dev.gate.account.Account;
import jakarta.ejb.EJB;
import jakarta.ejb.EJBException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Checks a name and password against the gate's accounts. A PBKDF2 check is deliberately slow, so a check that
 * passed is remembered for a minute (by a SHA-256 of name and password, never the password). Within that minute it
 * is trusted even while the database is unavailable; past it, or for a password not remembered, an unavailable
 * database means the credentials cannot be checked: neither passed nor failed.
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

        /** No such account, or a wrong password: 401. */
        record Failed() implements Check {
        }

        /** The accounts could not be read (the database is unavailable) and nothing fresh is remembered: 503. */
        record Unchecked(String why) implements Check {
        }
    }

    private record Remembered(Account account, String secretDigest, long atNanos) {
    }

    private final Map<String, Remembered> remembered = new ConcurrentHashMap<>();

    LongSupplier nanoTime = System::nanoTime;

    public Check check(String name, String password) {
        String digest = sha256(name + "\u0000" + password);
        Remembered known = remembered.get(name);
        if (known != null && nanoTime.getAsLong() - known.atNanos() < REMEMBER_NANOS
                && known.secretDigest().equals(digest)) {
            return new Check.Passed(known.account());
        }
        Optional<Account> account;
        try {
            account = accounts.find(name);
        } catch (GatePausedException e) {
            return new Check.Unchecked(e.getMessage());
        } catch (EJBException e) {
            // the container could not even start the lookup's transaction: the database is out of reach
            return new Check.Unchecked("accounts could not be read: " + e.getMessage());
        }
        if (account.isEmpty() || !passwords.matches(password, account.get().passwordHash())) {
            remembered.remove(name);
            return new Check.Failed();
        }
        remembered.put(name, new Remembered(account.get(), digest, nanoTime.getAsLong()));
        return new Check.Passed(account.get());
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
