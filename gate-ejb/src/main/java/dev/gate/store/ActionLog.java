package dev.gate.store;

import jakarta.persistence.EntityManager;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The operators' actions, each written in the transaction that does it (so an action is recorded exactly when it
 * happened), and the recent ones read back, newest first.
 */
public final class ActionLog {

    private static final String RECORD = "INSERT INTO gate_action (actor, action, target, detail) VALUES (?, ?, ?, ?)";

    private static final String RECENT = """
            SELECT id, at, actor, action, target, detail FROM gate_action ORDER BY at DESC, id DESC LIMIT ?""";

    private final Tx tx;

    public ActionLog(Tx tx) {
        this.tx = tx;
    }

    /** What an operator did: by whom, what, to what, and its particulars (may be null). */
    public record Entry(String actor, String action, String target, String detail) {
    }

    static void record(Connection c, Entry e) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(RECORD)) {
            ps.setString(1, e.actor());
            ps.setString(2, e.action());
            ps.setString(3, e.target());
            ps.setString(4, e.detail());
            ps.executeUpdate();
        }
    }

    static void record(EntityManager em, Entry e) {
        em.createNativeQuery(RECORD).setParameter(1, e.actor()).setParameter(2, e.action())
                .setParameter(3, e.target()).setParameter(4, e.detail()).executeUpdate();
    }

    /** One recorded action: when, who, what, on what, and how it went. */
    public record Recorded(long id, Instant at, String actor, String action, String target, String detail) {
    }

    /** The {@code count} most recent actions, newest first. */
    public List<Recorded> recent(int count) throws StoreUnavailable {
        return tx.run(c -> {
            List<Recorded> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(RECENT)) {
                ps.setInt(1, count);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Recorded(rs.getLong("id"), Times.get(rs, "at"), rs.getString("actor"),
                                rs.getString("action"), rs.getString("target"), rs.getString("detail")));
                    }
                }
            }
            return out;
        });
    }
}
