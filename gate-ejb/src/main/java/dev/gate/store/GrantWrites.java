package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.api.CallState;
import dev.gate.domain.CallRow;
import dev.gate.domain.Grant;
import dev.gate.rules.Beat;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * What every grant statement shares: which waiting calls may be granted ({@link #GRANTABLE}), the grant's writes (the
 * call granted with a new lease, its send logged, the beat moved, the grant announced) and the grant as it returns.
 */
final class GrantWrites {

    private GrantWrites() {
    }

    // ChosenHead.Head of the line: highest class, then arrival, then the identity sequence. Never granted: an expired lease, a
    // passed deadline, or a key another call holds granted and not yet done (that call goes around it, keeping its
    // place). A grant's lease starts anew: a key is free again when the call is done, cancelled, or its lease runs out.
    // A call whose gate instance is dead (its process gone) is passed over: nobody is left to take its grant.
    // The grant is recorded at this statement's own clock read, after its snapshot: a key freed by a commit this
    // statement sees is always done before the grant it lets through (the probe's earlier read could precede it).
    // The send is logged, the beat and the send number move (under the slot lock the pass holds) and the grant is
    // announced, all in this one round trip; a listener hears of it only once it is committed.
    // The conditions a waiting call must meet to be granted (after "WHERE" or "AND": a text block drops the space
    // before its end, so this one starts with one).
    static final String GRANTABLE = " " + """
            limit_name = ? AND state = 'WAITING' AND lease_expires_at > ?
                  AND (deadline_at IS NULL OR deadline_at > ?)
                  AND """ + InstanceLock.OWNER_ALIVE + """
                  AND (concurrency_key IS NULL OR NOT EXISTS (
                        SELECT 1 FROM gate_call g
                        WHERE g.limit_name = w.limit_name AND g.concurrency_key = w.concurrency_key
                          AND g.state = 'GRANTED' AND g.lease_expires_at > ?))""";

    // Once the head is chosen (and locked), the same for every order. The beat moves to the kept slot, or, where it
    // restarts (Beat.restartAfter), to that long after this send's own clock read (never before the kept slot):
    // "from the actual send", not from the probe's earlier read. A call of cost c logs c sends (units), numbered on from
    // seq; kept and restart are for its cost (Beat). Parameters: slot, seq, kept, restart (µs, or null: the beat is
    // kept), seq, limit. A vendor's block that ends first (an aligned rule's) ends the beat there (SlotRule.blockTurn).
    static final String WRITES = """
            t AS (SELECT clock_timestamp() AS at),
            granted AS (
                UPDATE gate_call c SET state = 'GRANTED', granted_at = t.at, aged = head.aged,
                                       lease_expires_at = t.at + c.lease_ms * interval '1 millisecond'
                FROM head, t WHERE c.id = head.id
                RETURNING c.id, c.limit_name, c.call_class, c.owner, c.program, c.enqueued_at, c.granted_at, c.aged,
                          c.lease_expires_at, c.dedupe_key IS NULL AS alone, c.cost),
            sent AS (
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq)
                SELECT limit_name, id, granted_at, ?, ? + u - 1 FROM granted, generate_series(1, granted.cost) u),
            nx AS (SELECT least(greatest(?::timestamptz, t.at + ?::bigint * interval '1 microsecond'),
                                gate_block_turn((SELECT limit_name FROM granted), t.at)) AS next_slot FROM t),
            moved AS (
                UPDATE gate_slot SET next_slot_at = nx.next_slot, send_seq = ? + (SELECT cost FROM granted) - 1
                FROM nx WHERE limit_name = ? AND EXISTS (SELECT 1 FROM granted))""";

    static final String ANSWER = """
            SELECT id, call_class, owner, program, enqueued_at, granted_at, lease_expires_at, alone, aged, cost,
                   (SELECT next_slot FROM nx) AS next_slot, pg_notify('""" + Granter.CHANNEL + """
            ', id::text) AS announced,
                   EXISTS (SELECT 1 FROM gate_call o WHERE o.limit_name = granted.limit_name AND o.state = 'WAITING'
                                                       AND o.id <> granted.id) AS more_waiting
            FROM granted""";

    static final String CHOSEN = WRITES + "\n" + ANSWER;

    /** Binds {@link #GRANTABLE}'s parameters from {@code p}; answers the next index. */
    static int bind(PreparedStatement ps, int p, String limit, Instant now) throws SQLException {
        ps.setString(p++, limit);
        Times.set(ps, p++, now);
        Times.set(ps, p++, now);
        Times.set(ps, p++, now);
        return p;
    }

    /**
     * A grant as its statement returned it; the call whole (as {@link CallReads#findVisible} reads it) unless dedupe
     * joiners may share it, whose count the statement does not read.
     */
    static Grant granted(ResultSet rs, String limit) throws SQLException {
        long id = rs.getLong("id");
        CallClass callClass = CallClass.ofRank(rs.getInt("call_class"));
        String owner = rs.getString("owner");
        Instant enqueued = Times.get(rs, "enqueued_at");
        Instant grantedAt = Times.get(rs, "granted_at");
        CallRow whole = rs.getBoolean("alone")
                ? new CallRow(id, limit, callClass, rs.getString("program"), owner, CallState.GRANTED, enqueued,
                        Times.get(rs, "lease_expires_at"), grantedAt, null, null, 0)
                : null;
        return new Grant(id, limit, callClass, owner, enqueued, grantedAt, rs.getBoolean("aged"), whole);
    }

    static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000 + t.getNano() / 1_000;
    }
}
