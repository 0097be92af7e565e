package dev.gate.store;



import java.sql.PreparedStatement;
import java.util.Set;

/**
 * Accounts created at start-up, where two servers may race: an explicit insert that does nothing when the account
 * exists. Hashes are PBKDF2 (made by the web tier), never plain passwords.
 */
public final class AccountTable {

    // Start-up accounts: two servers may create them at once, so an existing one simply stays.
    private static final String ADD = """
            INSERT INTO gate_account (name, password_hash, roles) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING""";

    // A stronger hash of the same password, only over the hash it replaces: an operator's change meanwhile stays.
    private static final String REPLACE_HASH = """
            UPDATE gate_account SET password_hash = ? WHERE name = ? AND password_hash = ?""";

    private final Tx tx;

    public AccountTable(Tx tx) {
        this.tx = tx;
    }

    /** Creates the account unless one of that name exists; true when it was created. */
    public boolean addIfAbsent(String name, String passwordHash, Set<String> roles) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(ADD)) {
                ps.setString(1, name);
                ps.setString(2, passwordHash);
                ps.setString(3, String.join(",", roles));
                return ps.executeUpdate() == 1;
            }
        });
    }

    /** Replaces the hash {@code was} of the account with {@code stronger}; true when it was still {@code was}. */
    public boolean replaceHash(String name, String was, String stronger) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(REPLACE_HASH)) {
                ps.setString(1, stronger);
                ps.setString(2, name);
                ps.setString(3, was);
                return ps.executeUpdate() == 1;
            }
        });
    }
}
