package dev.gate.engine;

import dev.gate.api.GatePausedException;
import dev.gate.store.AccountTable;
import dev.gate.store.StoreUnavailable;
import dev.gate.store.Tx;

import javax.sql.DataSource;
import java.util.Set;

/**
 * The two account writes that need explicit SQL: the start-up accounts, which two servers may create at once, and a
 * stronger hash that must not undo an operator's change made meanwhile. On the applications' pool, which carries no
 * session settings of the gate's own.
 */
public final class AccountWrites {

    private final AccountTable table;

    public AccountWrites(DataSource applications) {
        this.table = new AccountTable(Tx.onShared(applications));
    }

    /** Creates the account unless one of that name exists; true when created. */
    public boolean addIfAbsent(String name, String passwordHash, Set<String> roles) throws GatePausedException {
        try {
            return table.addIfAbsent(name, passwordHash, roles);
        } catch (StoreUnavailable e) {
            throw new GatePausedException("accounts could not be written: " + e.getMessage());
        }
    }

    /** Replaces the hash {@code was} with {@code stronger}; true when the account still had {@code was}. */
    public boolean replaceHash(String name, String was, String stronger) throws GatePausedException {
        try {
            return table.replaceHash(name, was, stronger);
        } catch (StoreUnavailable e) {
            throw new GatePausedException("accounts could not be written: " + e.getMessage());
        }
    }
}
