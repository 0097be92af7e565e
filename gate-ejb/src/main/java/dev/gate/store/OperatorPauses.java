package dev.gate.store;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * An operator's pause of a limit and its end: the slot row's pause, recorded as the operator's action in the same
 * transaction.
 */
public final class OperatorPauses {

    // An operator's pause: no grant before it ends. A cool-down already running longer is kept (the later end wins),
    // as the vendor's next "slow down" keeps an operator's longer pause.
    private static final String PAUSE = """
            UPDATE gate_slot SET paused_until = GREATEST(paused_until, clock_timestamp() + ? * interval '1 millisecond')
            WHERE limit_name = ?
            RETURNING paused_until""";

    // Ends a pause at once, the operator's or the vendor's cool-down, and the vendor's count that holds the limit; the
    // ladder's step stays (the vendor's history).
    private static final String RESUME = """
            UPDATE gate_slot SET paused_until = NULL, vendor_after_unit = NULL, vendor_remaining = NULL,
                                 vendor_reset_at = NULL, vendor_program = NULL, vendor_call = NULL
            WHERE limit_name = ? RETURNING limit_name""";

    private final Tx tx;

    public OperatorPauses(Tx tx) {
        this.tx = tx;
    }

    /** Pauses the limit for {@code span} by {@code actor}'s hand; the pause's end, empty when there is no such limit. */
    public Optional<Instant> pause(String name, Duration span, String actor) throws StoreUnavailable {
        return tx.run(c -> {
            Instant until;
            try (PreparedStatement ps = c.prepareStatement(PAUSE)) {
                ps.setLong(1, span.toMillis());
                ps.setString(2, name);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.<Instant>empty();
                    }
                    until = Times.get(rs, "paused_until");
                }
            }
            ActionLog.record(c, new ActionLog.Entry(actor, "pause", "limit " + name,
                    "for " + span.toSeconds() + " s, until " + until));
            return Optional.of(until);
        });
    }

    /**
     * Ends the limit's pause (an operator's or a cool-down) and the vendor's count that holds it, by {@code actor}'s
     * hand; false when there is no such limit.
     */
    public boolean resume(String name, String actor) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(RESUME)) {
                ps.setString(1, name);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return false;
                    }
                }
            }
            ActionLog.record(c, new ActionLog.Entry(actor, "resume", "limit " + name, null));
            return true;
        });
    }
}
