package dev.gate.store;

import dev.gate.client.GatePausedException;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/** The gate's identity store: accounts with PBKDF2 hashes (made by the web tier), never plain passwords. */
public final class AccountTable {

    private static final String FIND = "SELECT name, password_hash, roles FROM gate_account WHERE name = ?";

    private static final String PUT = """
            INSERT INTO gate_account (name, password_hash, roles) VALUES (?, ?, ?)
            ON CONFLICT (name) DO UPDATE
                SET password_hash = EXCLUDED.password_hash, roles = EXCLUDED.roles, updated_at = clock_timestamp()
            RETURNING (xmax = 0) AS created""";

    private static final String ADD = """
            INSERT INTO gate_account (name, password_hash, roles) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING""";

    private static final String DELETE = "DELETE FROM gate_account WHERE name = ?";

    private final Tx tx;

    public AccountTable(Tx tx) {
        this.tx = tx;
    }

    public Optional<Account> find(String name) throws GatePausedException {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(FIND)) {
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    Set<String> roles = new LinkedHashSet<>(Arrays.asList(rs.getString("roles").split(",")));
                    return Optional.of(new Account(rs.getString("name"), rs.getString("password_hash"), roles));
                }
            }
        });
    }

    /** Creates or replaces the account; true when it was created. */
    public boolean put(Account account) throws GatePausedException {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(PUT)) {
                bind(ps, account);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getBoolean("created");
                }
            }
        });
    }

    /** Creates the account unless one of that name exists; true when it was created. */
    public boolean addIfAbsent(Account account) throws GatePausedException {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(ADD)) {
                bind(ps, account);
                return ps.executeUpdate() == 1;
            }
        });
    }

    public boolean delete(String name) throws GatePausedException {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(DELETE)) {
                ps.setString(1, name);
                return ps.executeUpdate() == 1;
            }
        });
    }

    private static void bind(PreparedStatement ps, Account account) throws java.sql.SQLException {
        ps.setString(1, account.name());
        ps.setString(2, account.passwordHash());
        ps.setString(3, String.join(",", account.roles()));
    }
}
