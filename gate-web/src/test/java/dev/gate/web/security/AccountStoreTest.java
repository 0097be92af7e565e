package dev.gate.web.security;

import dev.gate.client.GatePausedException;
import dev.gate.app.Accounts;
import dev.gate.account.Account;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** What a caller is told about its credentials while the database comes and goes. */
class AccountStoreTest {

    private final Account worker = new Account("worker", "hash-of:right-password", Set.of("caller"));
    private boolean databaseUp = true;
    private long now = 1_000_000_000L;
    private AccountStore store;

    @BeforeEach
    void store() {
        store = new AccountStore();
        store.accounts = new Accounts() {
            @Override
            public Optional<Account> find(String name) throws GatePausedException {
                if (!databaseUp) {
                    throw new GatePausedException("accounts could not be read: Connection refused");
                }
                return name.equals(worker.name()) ? Optional.of(worker) : Optional.empty();
            }
        };
        store.passwords = new Passwords() {
            @Override
            public boolean matches(String password, String hash) {
                return hash.equals("hash-of:" + password);
            }
        };
        store.nanoTime = () -> now;
    }

    @Test
    void credentialsNeverCheckedCannotBeCheckedWhileTheDatabaseIsDown() {
        databaseUp = false;
        assertInstanceOf(AccountStore.Check.Unchecked.class, store.check("worker", "right-password"));
        assertInstanceOf(AccountStore.Check.Unchecked.class, store.check("worker", "wrong-password"));
        assertInstanceOf(AccountStore.Check.Unchecked.class, store.check("nobody", "any-password"));
    }

    @Test
    void aPassedCheckIsTrustedForItsMinuteOnly() {
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
        databaseUp = false;
        now += TimeUnit.SECONDS.toNanos(59);
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
        // another password than the one remembered may be the account's new one: it cannot be checked either way
        assertInstanceOf(AccountStore.Check.Unchecked.class, store.check("worker", "wrong-password"));
        now += TimeUnit.SECONDS.toNanos(2);
        assertInstanceOf(AccountStore.Check.Unchecked.class, store.check("worker", "right-password"));
    }

    @Test
    void onceTheDatabaseIsBackAWrongPasswordFails() {
        databaseUp = false;
        assertInstanceOf(AccountStore.Check.Unchecked.class, store.check("worker", "wrong-password"));
        databaseUp = true;
        assertInstanceOf(AccountStore.Check.Failed.class, store.check("worker", "wrong-password"));
        assertInstanceOf(AccountStore.Check.Failed.class, store.check("nobody", "any-password"));
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
    }
}
