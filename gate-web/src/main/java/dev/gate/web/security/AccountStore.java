package dev.gate.web.security;

import dev.gate.client.GatePausedException;
import dev.gate.ejb.Accounts;
import dev.gate.store.Account;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.authentication.mechanism.http.BasicAuthenticationMechanismDefinition;
import jakarta.security.enterprise.credential.UsernamePasswordCredential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStore;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Checks HTTP Basic credentials against the gate's accounts. A PBKDF2 check is deliberately slow, so a check that
 * passed is remembered for a minute (by a SHA-256 of the password, never the password); and while the database is
 * unavailable a remembered check still lets a known program in, to be told that calls are paused.
 */
@BasicAuthenticationMechanismDefinition(realmName = "gate")
@ApplicationScoped
public class AccountStore implements IdentityStore {

    private static final long REMEMBER_NANOS = TimeUnit.MINUTES.toNanos(1);

    @EJB
    Accounts accounts;

    @Inject
    Passwords passwords;

    private record Passed(Account account, String secretDigest, long atNanos) {
    }

    private final Map<String, Passed> passed = new ConcurrentHashMap<>();

    public CredentialValidationResult validate(UsernamePasswordCredential credential) {
        String name = credential.getCaller();
        String password = credential.getPasswordAsString();
        String digest = sha256(name + "\u0000" + password);
        Passed known = passed.get(name);
        boolean fresh = known != null && System.nanoTime() - known.atNanos() < REMEMBER_NANOS;
        if (fresh && known.secretDigest().equals(digest)) {
            return valid(known.account());
        }
        Optional<Account> account;
        try {
            account = accounts.find(name);
        } catch (GatePausedException e) {
            return known != null && known.secretDigest().equals(digest) ? valid(known.account())
                    : CredentialValidationResult.NOT_VALIDATED_RESULT;
        }
        if (account.isEmpty() || !passwords.matches(password, account.get().passwordHash())) {
            passed.remove(name);
            return CredentialValidationResult.INVALID_RESULT;
        }
        passed.put(name, new Passed(account.get(), digest, System.nanoTime()));
        return valid(account.get());
    }

    /** An account changed: forget what was remembered of it. */
    public void forget(String name) {
        passed.remove(name);
    }

    private static CredentialValidationResult valid(Account account) {
        return new CredentialValidationResult(account.name(), account.roles());
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
