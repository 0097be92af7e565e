package dev.gate.web.security;

import dev.gate.app.Account;
import dev.gate.app.Accounts;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Outside development mode the gate does not start while an account's password is its name, and says which. */
class StartupAccountsTest {

    private final Passwords passwords = new Passwords(1_000); // the rule, not the cost, is under test

    private StartupAccounts startup(List<Account> existing) {
        StartupAccounts s = new StartupAccounts();
        s.passwords = passwords;
        s.accounts = new Accounts() {
            @Override
            public List<Account> all() {
                return existing;
            }
        };
        return s;
    }

    @Test
    void developmentAccountsInARealDatabaseStopTheStartAndAreNamed() {
        StartupAccounts s = startup(List.of(
                new Account("ops", passwords.hash("ops"), Set.of("operator")),
                new Account("payments", passwords.hash("a long secret"), Set.of("caller")),
                new Account("web", passwords.hash("web"), Set.of("caller"))));
        IllegalStateException refused = assertThrows(IllegalStateException.class, s::refuseNameAsPassword);
        assertTrue(refused.getMessage().contains("ops, web"), refused.getMessage());
        assertTrue(refused.getMessage().contains("GATE_DEV_MODE=true"), "says how to get out: " + refused.getMessage());
    }

    @Test
    void accountsWithTheirOwnPasswordsStart() {
        StartupAccounts s = startup(List.of(new Account("payments", passwords.hash("a long secret"),
                Set.of("caller"))));
        assertDoesNotThrow(s::refuseNameAsPassword);
    }
}
