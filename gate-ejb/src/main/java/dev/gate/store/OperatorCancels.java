package dev.gate.store;

import java.sql.PreparedStatement;
import java.util.List;
import java.util.Optional;

/**
 * An operator's cancels: one waiting call of a limit, or every waiting call of a program (a drain), each recorded in
 * the action log in the transaction that cancels.
 */
public final class OperatorCancels {

    // An operator cancels any waiting call of a limit; a granted call is not un-granted.
    private static final String CANCEL_IN_LIMIT = """
            UPDATE gate_call SET state = 'CANCELLED', done_at = clock_timestamp()
            WHERE id = ? AND limit_name = ? AND state = 'WAITING'
            RETURNING id, limit_name, call_class, owner, state""";

    // An operator drains a program: every waiting call it submitted leaves the line (of one limit, or of all).
    private static final String DRAIN = """
            UPDATE gate_call SET state = 'CANCELLED', done_at = clock_timestamp()
            WHERE program = ? AND state = 'WAITING' AND (CAST(? AS varchar) IS NULL OR limit_name = ?)
            RETURNING id, limit_name, call_class, owner, state""";

    private final Tx tx;

    public OperatorCancels(Tx tx) {
        this.tx = tx;
    }

    /** An operator's cancel of a waiting call of {@code limit}, recorded; empty when it was not waiting there. */
    public Optional<Leases.Cleared> cancelInLimit(long id, String limit, String actor) throws StoreUnavailable {
        return tx.run(c -> {
            List<Leases.Cleared> cleared;
            try (PreparedStatement ps = c.prepareStatement(CANCEL_IN_LIMIT)) {
                ps.setLong(1, id);
                ps.setString(2, limit);
                cleared = Leases.cleared(ps);
            }
            if (!cleared.isEmpty()) {
                ActionLog.record(c, new ActionLog.Entry(actor, "cancel-call", "call " + id, "limit " + limit));
            }
            return cleared.stream().findFirst();
        });
    }

    /**
     * An operator's drain, recorded: every waiting call of {@code program} leaves the line, of {@code limit} only
     * when it is given; answers the calls cancelled.
     */
    public List<Leases.Cleared> drain(String program, String limit, String actor) throws StoreUnavailable {
        return tx.run(c -> {
            List<Leases.Cleared> cleared;
            try (PreparedStatement ps = c.prepareStatement(DRAIN)) {
                ps.setString(1, program);
                ps.setString(2, limit);
                ps.setString(3, limit);
                cleared = Leases.cleared(ps);
            }
            ActionLog.record(c, new ActionLog.Entry(actor, "drain", "program " + program,
                    cleared.size() + " waiting calls cancelled" + (limit == null ? "" : " on limit " + limit)));
            return cleared;
        });
    }
}
