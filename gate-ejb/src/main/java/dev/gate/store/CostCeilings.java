package dev.gate.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;

/** The most a call of a limit may cost: the calls of its smallest rule (its own or one of its more rules). */
public final class CostCeilings {

    private static final String SQL = """
            SELECT least(l.calls, (SELECT min(r.calls) FROM gate_limit_rule r WHERE r.limit_name = l.name)) AS most
            FROM gate_limit l WHERE l.name = ?""";

    private final Tx tx;

    public CostCeilings(Tx tx) {
        this.tx = tx;
    }

    /** Empty when there is no such limit. */
    public Optional<Integer> mostOf(String limit) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(SQL)) {
                ps.setString(1, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getInt("most")) : Optional.<Integer>empty();
                }
            }
        });
    }
}
