package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.api.CallState;
import dev.gate.domain.CallRow;
import dev.gate.domain.Grant;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Group joins: calls of this instance that arrived together at one limit join its line in one statement and, in the
 * same transaction, the grant pass due on the limit is made, as {@link Joins#joinAndGrant} does for one call.
 */
public final class GroupJoins {

    // Calls that arrived together at one limit of this instance, joined in one statement (a group join). Each gets its
    // id before the insert, so its row is found again; the line's cap counts the group's earlier members. A limit with
    // a per-program cap (or keyed, or gone) inserts none: its calls join one by one. Then the slot lock, as
    // Joins.JOIN_AND_LOCK. Parameters: the members' classes, programs, owners, leases (arrays), the limit, the limit.
    static final String JOIN_GROUP = """
            WITH r AS (
                SELECT nextval(pg_get_serial_sequence('gate_call', 'id')) AS id, q.call_class, q.program, q.owner,
                       q.lease_ms, q.n
                FROM unnest(?::int[], ?::varchar[], ?::varchar[], ?::int[])
                         WITH ORDINALITY AS q(call_class, program, owner, lease_ms, n)),
            room AS (
                SELECT l.name, l.max_waiting - %s AS places FROM gate_limit l
                WHERE l.name = ? AND NOT l.keyed AND l.max_waiting_per_program IS NULL),
            j AS (
                INSERT INTO gate_call (id, limit_name, call_class, program, owner, state, lease_ms, lease_expires_at)
                OVERRIDING SYSTEM VALUE
                SELECT r.id, room.name, r.call_class, r.program, r.owner, 'WAITING', r.lease_ms,
                       clock_timestamp() + r.lease_ms * interval '1 millisecond'
                FROM r, room WHERE r.n <= room.places
                ORDER BY r.n
                RETURNING id, enqueued_at, lease_expires_at),
            k AS (%s)
            SELECT r.n, j.id, j.enqueued_at, j.lease_expires_at, k.*
            FROM r LEFT JOIN j ON j.id = r.id LEFT JOIN k ON true
            ORDER BY r.n""".formatted(LineRoom.WAITING_IN_LINE, SlotLock.SQL);

    private final Tx tx;

    public GroupJoins(Tx tx) {
        this.tx = tx;
    }

    /** One call of a group join: who it is, its lease, and what must know its id before the join commits. */
    public record GroupMember(CallClass callClass, String program, String owner, Duration lease,
                              LongConsumer beforeCommit) {
    }

    /**
     * A group join's outcome: each member's row as the join left it (WAITING, or GRANTED by the pass), in the
     * members' order, or empty for a member that did not join (a cap, or a limit whose calls join one by one: it
     * joins alone); and the pass made under the join's commit.
     */
    public record GroupEntered(List<Optional<CallRow>> rows, GrantPass pass) {
    }

    /**
     * Joins calls that arrived together at {@code limit} in one statement and, in the same transaction (one commit),
     * grants what is due, as {@link Joins#joinAndGrant} does for one. All or nothing: if the transaction fails, no
     * member joined. A limit that is gone, keyed, or caps each program's share inserts none (its members join alone).
     */
    public GroupEntered joinGroupAndGrant(String limit, List<GroupMember> members,
                                          Consumer<GrantPass> passBeforeCommit) throws StoreUnavailable {
        try {
            return joinGroupAndGrantOnce(limit, members, passBeforeCommit);
        } catch (IllegalStateException e) {
            if (!LimitGone.is(e)) {
                throw e;
            }
            // removed while the insert waited for its row: none joined, each joins alone and hears it is unknown
            return new GroupEntered(members.stream().map(m -> Optional.<CallRow>empty()).toList(), GrantPass.nothing());
        }
    }

    private GroupEntered joinGroupAndGrantOnce(String limit, List<GroupMember> members,
                                               Consumer<GrantPass> passBeforeCommit) throws StoreUnavailable {
        return tx.run(c -> {
            int n = members.size();
            Integer[] classes = new Integer[n];
            String[] programs = new String[n];
            String[] owners = new String[n];
            Integer[] leases = new Integer[n];
            for (int i = 0; i < n; i++) {
                GroupMember m = members.get(i);
                classes[i] = m.callClass().rank();
                programs[i] = m.program();
                owners[i] = m.owner();
                leases[i] = Math.toIntExact(m.lease().toMillis());
            }
            List<Optional<Joins.Inserted>> inserted = new ArrayList<>(n);
            Optional<SlotLock.Locked> slot = Optional.empty();
            Instant latest = null;
            try (PreparedStatement ps = c.prepareStatement(JOIN_GROUP)) {
                ps.setArray(1, c.createArrayOf("integer", classes));
                ps.setArray(2, c.createArrayOf("varchar", programs));
                ps.setArray(3, c.createArrayOf("varchar", owners));
                ps.setArray(4, c.createArrayOf("integer", leases));
                ps.setString(5, limit);
                ps.setString(6, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long id = rs.getLong("id");
                        if (rs.wasNull()) {
                            inserted.add(Optional.empty());
                        } else {
                            Instant enqueued = Times.get(rs, "enqueued_at");
                            latest = latest == null || enqueued.isAfter(latest) ? enqueued : latest;
                            inserted.add(Optional.of(new Joins.Inserted(id, enqueued, Times.get(rs, "lease_expires_at"),
                                    Optional.empty())));
                        }
                        if (slot.isEmpty()) {
                            slot = SlotLock.locked(rs);
                        }
                    }
                }
            }
            if (latest == null) { // nobody joined: nothing to grant here
                return new GroupEntered(inserted.stream().map(i -> Optional.<CallRow>empty()).toList(),
                        GrantPass.nothing());
            }
            for (int i = 0; i < n; i++) {
                if (inserted.get(i).isPresent()) {
                    members.get(i).beforeCommit().accept(inserted.get(i).get().id());
                }
            }
            Instant probedAfter = latest;
            GrantPass pass = Granter.grantDue(c, limit, slot.map(l -> l.probedNotBefore(probedAfter)));
            passBeforeCommit.accept(pass);
            Map<Long, Grant> granted = new HashMap<>();
            pass.grants().forEach(g -> granted.put(g.callId(), g));
            List<Optional<CallRow>> rows = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                GroupMember m = members.get(i);
                rows.add(inserted.get(i).map(in -> {
                    Grant g = granted.get(in.id());
                    return g == null
                            ? new CallRow(in.id(), limit, m.callClass(), m.program(), m.owner(), CallState.WAITING,
                                    in.enqueuedAt(), in.leaseExpiresAt(), null, null, null, 0)
                            : new CallRow(in.id(), limit, m.callClass(), m.program(), m.owner(), CallState.GRANTED,
                                    in.enqueuedAt(), g.grantedAt().plus(m.lease()), g.grantedAt(), null, null, 0);
                }));
            }
            return new GroupEntered(rows, pass);
        });
    }
}
