package dev.gate.web.security;

import dev.gate.api.GatePausedException;
import dev.gate.app.Accounts;
import dev.gate.app.Account;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** What a caller is told about its credentials while the database comes and goes. */
class AccountStoreTest {

    private Account worker = new Account("worker", "hash-of:right-password", Set.of("caller"));
    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicInteger hashChecks = new AtomicInteger();
    private final List<String> replaced = new ArrayList<>();
    private CountDownLatch slowCheck = new CountDownLatch(0);
    private boolean databaseUp = true;
    private long now = 1_000_000_000L;
    private AccountStore store;

    @BeforeEach
    void store() {
        store = new AccountStore();
        store.accounts = new Accounts() {
            @Override
            public Optional<Account> find(String name) throws GatePausedException {
                reads.incrementAndGet();
                if (!databaseUp) {
                    throw new GatePausedException("accounts could not be read: Connection refused");
                }
                return name.equals(worker.name()) ? Optional.of(worker) : Optional.empty();
            }

            @Override
            public boolean replaceHash(String name, String was, String stronger) {
                replaced.add(name + ": " + was + " -> " + stronger);
                return true;
            }
        };
        store.passwords = new Passwords() {
            @Override
            public boolean matches(String password, String hash) {
                hashChecks.incrementAndGet();
                try {
                    slowCheck.await(); // a PBKDF2 check takes its time
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return hash.equals("hash-of:" + password) || hash.equals("old-hash-of:" + password);
            }

            @Override
            public void spendACheck(String password) {
                matches(password, "decoy");
            }

            @Override
            public boolean outdated(String hash) {
                return hash.startsWith("old-");
            }

            @Override
            public String hash(String password) {
                return "hash-of:" + password;
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

    @Test
    void aWrongPasswordLeavesTheRightOneRemembered() {
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
        assertInstanceOf(AccountStore.Check.Failed.class, store.check("worker", "wrong-password"));
        databaseUp = false; // the right one is still remembered: it needs no read
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
    }

    @Test
    void aNameWithNoAccountCostsAHashCheckAsAKnownOneDoes() {
        store.check("nobody", "any-password");
        assertEquals(1, hashChecks.get());
        store.check("worker", "wrong-password");
        assertEquals(2, hashChecks.get());
    }

    @Test
    void manyAtOnceWithTheSameCredentialsCheckTheHashOnce() throws Exception {
        slowCheck = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<AccountStore.Check>> checks = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                checks.add(pool.submit(() -> store.check("worker", "right-password")));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (hashChecks.get() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            slowCheck.countDown();
            for (Future<AccountStore.Check> check : checks) {
                assertInstanceOf(AccountStore.Check.Passed.class, check.get(10, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, hashChecks.get(), "one slow check; the others waited for it and found it remembered");
        assertEquals(1, reads.get());
    }

    @Test
    void anOutdatedHashIsReplacedAtTheNextSuccessfulCheckOnly() {
        worker = new Account("worker", "old-hash-of:right-password", Set.of("caller"));
        assertInstanceOf(AccountStore.Check.Failed.class, store.check("worker", "wrong-password"));
        assertEquals(List.of(), replaced);
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
        assertEquals(List.of("worker: old-hash-of:right-password -> hash-of:right-password"), replaced);
    }

    @Test
    void anAddressThatFailedTooOftenIsHeldWithoutItsPasswordBeingChecked() {
        for (int i = 0; i < FailedSignIns.PER_ACCOUNT; i++) {
            assertInstanceOf(AccountStore.Check.Failed.class, store.check("worker", "guess-" + i, "10.0.0.9"));
        }
        int checked = hashChecks.get();
        assertInstanceOf(AccountStore.Check.Held.class, store.check("worker", "right-password", "10.0.0.9"));
        assertEquals(checked, hashChecks.get(), "a held address learns nothing of its password");
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password", "10.0.0.7"));
        now += FailedSignIns.FIRST_PAUSE.toNanos();
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password", "10.0.0.9"));
    }

    @Test
    void credentialsThatSignedInFromAnAddressGoOnWhileSomeoneThereGuessesNames() {
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password", "10.0.0.9"));
        for (int i = 0; i < FailedSignIns.PER_ADDRESS; i++) {
            assertInstanceOf(AccountStore.Check.Failed.class, store.check("guess-" + i, "any", "10.0.0.9"));
        }
        int checked = hashChecks.get();
        assertInstanceOf(AccountStore.Check.Held.class, store.check("guess-x", "any", "10.0.0.9"), "names guessed");
        assertInstanceOf(AccountStore.Check.Held.class, store.check("worker", "a-guess", "10.0.0.9"),
                "a password never seen to work from there");
        assertEquals(checked, hashChecks.get(), "what is held is not checked");
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password", "10.0.0.9"),
                "the program already signed in from that address goes on");
        assertInstanceOf(AccountStore.Check.Failed.class, store.check("guess-y", "any", "10.0.0.7"),
                "another address is not held");
    }

    @Test
    void aSteadyCallerIsNotDerivedAgainAtEachMinute() {
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
        assertEquals(1, hashChecks.get());
        for (int i = 0; i < 12; i++) { // four minutes of the confirmations off the request path
            now += AccountStore.CONFIRM_EVERY.toNanos();
            store.confirmRemembered();
            int read = reads.get();
            assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
            assertEquals(read, reads.get(), "a confirmed sign-in needs no read on the request path");
        }
        // no confirmation for over a minute (the scheduler late): the request reads the account, and only reads it
        now += TimeUnit.SECONDS.toNanos(61);
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
        assertEquals(1, hashChecks.get(), "the password was derived once, while the account's hash stayed the same");
    }

    @Test
    void aRemovedOrChangedAccountLosesItsRememberedSignInWithinTheMinute() {
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
        worker = new Account("worker", "hash-of:right-password", Set.of("caller", "operator")); // roles changed
        now += AccountStore.CONFIRM_EVERY.toNanos();
        store.confirmRemembered();
        assertEquals(Set.of("caller", "operator"),
                ((AccountStore.Check.Passed) store.check("worker", "right-password")).account().roles());

        worker = new Account("worker", "hash-of:new-password", Set.of("caller")); // its password changed elsewhere
        now += AccountStore.CONFIRM_EVERY.toNanos();
        store.confirmRemembered();
        databaseUp = false;
        assertInstanceOf(AccountStore.Check.Unchecked.class, store.check("worker", "right-password"),
                "no longer remembered");
        databaseUp = true;
        assertInstanceOf(AccountStore.Check.Failed.class, store.check("worker", "right-password"));
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "new-password"));

        worker = new Account("someone-else", "hash-of:x", Set.of("caller")); // the account removed
        now += AccountStore.CONFIRM_EVERY.toNanos();
        store.confirmRemembered();
        assertInstanceOf(AccountStore.Check.Failed.class, store.check("worker", "new-password"));
    }

    @Test
    void aSignInNotConfirmedForAMinuteIsCheckedAgainstTheAccountOnTheRequest() {
        assertInstanceOf(AccountStore.Check.Passed.class, store.check("worker", "right-password"));
        worker = new Account("worker", "hash-of:new-password", Set.of("caller"));
        now += TimeUnit.SECONDS.toNanos(61); // no confirmation ran (the scheduler late, the database was out)
        assertInstanceOf(AccountStore.Check.Failed.class, store.check("worker", "right-password"));
        assertEquals(2, hashChecks.get(), "a changed hash is derived against");
    }
}
