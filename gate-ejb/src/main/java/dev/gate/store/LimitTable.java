package dev.gate.store;

import dev.gate.domain.LimitRemoval;

import dev.gate.domain.Limit;
import dev.gate.rules.LimitOptions;
import dev.gate.rules.Pace;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Limits: declared at deployment (explicit SQL: a declaration only adds, and two servers may race), put by an operator
 * (the {@link Limit} entity), removed with their history (explicit SQL: one transaction, checks before deletes).
 */
public final class LimitTable {

    // Declared at deployment by every server: the first adds the limit, the table stays the truth after.
    private static final String DECLARE = """
            INSERT INTO gate_limit (name, calls, window_ms) VALUES (?, ?, ?)
            ON CONFLICT (name) DO NOTHING""";

    // A change's time, on the database's clock (clock_timestamp(), not the transaction's start).
    private static final String TOUCH = "UPDATE gate_limit SET updated_at = clock_timestamp() WHERE name = ?";

    // A re-declared limit's adaptive rate starts again from its declared calls (the last cut was against the old ones).
    private static final String RESTART_ADAPTIVE =
            "UPDATE gate_slot SET adaptive_calls = NULL, adaptive_cut_at = NULL WHERE limit_name = ?";

    // Removal is one transaction: the checks first, under the limit's locks, then the history in batches (each
    // statement short), then the limit. A refusal, a failure or a crash part-way changes nothing.
    // The limit and its keys: the calls and sends of both go with it.
    private static final String LIMIT_AND_KEYS =
            "(SELECT CAST(? AS varchar) UNION ALL SELECT name FROM gate_limit WHERE template_name = ?)";

    private static final String DROP_FINISHED_CALLS = """
            DELETE FROM gate_call WHERE id IN (
                SELECT id FROM gate_call WHERE limit_name IN %s AND state NOT IN ('WAITING', 'GRANTED') LIMIT ?)"""
            .formatted(LIMIT_AND_KEYS);

    // By row address (a TID scan): no index on the send's id (its key is the limit and the send number)
    static final String DROP_SENDS = """
            DELETE FROM gate_send WHERE ctid = ANY (ARRAY(SELECT ctid FROM gate_send WHERE limit_name IN %s LIMIT ?))"""
            .formatted(LIMIT_AND_KEYS);

    // A template's keys, a batch at a time (each takes its slot, rules and turns by cascade).
    private static final String DROP_KEYS = """
            DELETE FROM gate_limit WHERE name IN (SELECT name FROM gate_limit WHERE template_name = ? LIMIT ?)""";

    // The limit's row, FOR UPDATE: a join's insert (its foreign key's KEY SHARE) and a key's open (FOR SHARE) wait
    // for the removal's end, and a join that inserted before it is committed (and counted) first.
    private static final String LOCK_LIMIT = "SELECT 1 FROM gate_limit WHERE name = ? FOR UPDATE";

    // An operator's pause: no grant before it ends. A cool-down already running longer is kept (the later end wins),
    // as the vendor's next "slow down" keeps an operator's longer pause.
    private static final String PAUSE = """
            UPDATE gate_slot SET paused_until = GREATEST(paused_until, clock_timestamp() + ? * interval '1 millisecond')
            WHERE limit_name = ?
            RETURNING paused_until""";

    // Ends a pause at once, the operator's or the vendor's cool-down; the ladder's step stays (the vendor's history).
    private static final String RESUME = """
            UPDATE gate_slot SET paused_until = NULL WHERE limit_name = ? RETURNING limit_name""";

    // The last step waits for the limit's slot lock, so no grant runs while the limit goes.
    private static final String LOCK_SLOT = "SELECT 1 FROM gate_slot WHERE limit_name = ? FOR UPDATE";

    // The slots of the limits with waiting calls, and the database's clock (one row with it alone when there are
    // none). WAITING as a literal, not a parameter: the line's partial index (WHERE state = 'WAITING') serves only a
    // predicate the planner can prove, also in a generic plan of a server-prepared statement.
    static final String WITH_WAITING_CALLS = """
            SELECT clock_timestamp() AS now, s.limit_name, s.next_slot_at, s.paused_until
            FROM (SELECT 1) one LEFT JOIN (
                SELECT s.limit_name, s.next_slot_at, s.paused_until FROM gate_slot s
                WHERE EXISTS (SELECT 1 FROM gate_call c WHERE c.limit_name = s.limit_name AND c.state = 'WAITING')) s
            ON true
            ORDER BY s.limit_name""";

    // A limit with waiting or granted calls is kept (a template: with its keys'); the operator hears how many.
    private static final String LIVE_CALLS = """
            SELECT count(*) FROM gate_call WHERE limit_name IN %s AND state IN ('WAITING', 'GRANTED')"""
            .formatted(LIMIT_AND_KEYS);

    // The slot row, the extra rules and the saved-sends count go with it (ON DELETE CASCADE).
    private static final String DROP_LIMIT = "DELETE FROM gate_limit WHERE name = ?";

    /** Rows per statement of a removal: each well inside the statement timeout. */
    private static final int BATCH = 2_000;

    /** A parent that cannot be one: missing, keyed, a key, or under a parent itself; or a parent made keyed. */
    public static final class BadParent extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadParent(String message) {
            super(message, null, false, false);
        }
    }

    private final Tx tx;
    private final Jpa jpa;

    public LimitTable(Tx tx, Jpa jpa) {
        this.tx = tx;
        this.jpa = jpa;
    }

    /**
     * Creates the limit or changes it in place, with all its options; true when it was created. Recorded as
     * {@code actor}'s action in the same transaction.
     */
    public boolean put(String name, Pace pace, LimitOptions options, Duration starvingAfter, String actor)
            throws StoreUnavailable {
        try {
            return jpa.run(em -> putIn(em, name, pace, options, starvingAfter, actor));
        } catch (PersistenceException e) {
            SQLException sql = Jpa.sqlCause(e);
            if (sql != null && "23505".equals(sql.getSQLState())) {
                // created meanwhile by another: change it
                return jpa.run(em -> putIn(em, name, pace, options, starvingAfter, actor));
            }
            throw e;
        }
    }

    /**
     * Changes only the limit's own rule (calls per window), keeping its options and more rules, by {@code actor}'s
     * hand (recorded); false when there is no such limit.
     */
    public boolean rePace(String name, Pace pace, String actor) throws StoreUnavailable {
        return jpa.run(em -> {
            Limit limit = em.find(Limit.class, name);
            if (limit == null) {
                return false;
            }
            limit.rePace(pace);
            em.flush();
            em.createNativeQuery(TOUCH).setParameter(1, name).executeUpdate();
            ActionLog.record(em, new ActionLog.Entry(actor, "change-limit", "limit " + name, rule(pace)));
            return true;
        });
    }

    /** A rule as the action log says it: "600 per 60 s". */
    private static String rule(Pace pace) {
        long ms = pace.window().toMillis();
        return pace.calls() + " per " + (ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms");
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

    /** Ends the limit's pause (an operator's or a cool-down) by {@code actor}'s hand; false when there is no such limit. */
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

    // No lock on the limit row first: FOR UPDATE on gate_limit would block every insert that references it (joins,
    // grants) until the change commits; the update itself takes the weaker lock those inserts do not wait for.
    // Two operators changing one limit at once: the last one wins. updated_at on the database clock.
    private static boolean putIn(EntityManager em, String name, Pace pace, LimitOptions options,
                                 Duration starvingAfter, String actor) {
        checkParent(em, name, options);
        Limit limit = em.find(Limit.class, name);
        String rule = rule(pace);
        if (limit == null) {
            em.persist(new Limit(name, pace, options, starvingAfter));
            em.flush();
            ActionLog.record(em, new ActionLog.Entry(actor, "create-limit", "limit " + name, rule));
            return true;
        }
        limit.change(pace, options, starvingAfter);
        em.flush();
        em.createNativeQuery(TOUCH).setParameter(1, name).executeUpdate();
        em.createNativeQuery(RESTART_ADAPTIVE).setParameter(1, name).executeUpdate();
        ActionLog.record(em, new ActionLog.Entry(actor, "change-limit", "limit " + name, rule));
        return false;
    }

    // The limits that name this one as their parent.
    private static final String CHILDREN = "SELECT name FROM gate_limit WHERE parent_name = ?1 AND keyed";

    private static void checkParent(EntityManager em, String name, LimitOptions options) {
        if (options.keyed() || options.parent() != null) {
            List<?> children = em.createNativeQuery(CHILDREN).setParameter(1, name).getResultList();
            if (!children.isEmpty()) {
                throw new BadParent("it is the parent of " + children + ": a parent stays a plain limit");
            }
        }
        if (options.parent() == null) {
            return;
        }
        if (options.parent().equals(name)) {
            throw new BadParent("a limit is not its own parent");
        }
        Limit parent = em.find(Limit.class, options.parent());
        if (parent == null) {
            throw new BadParent("no parent limit named '" + options.parent() + "'");
        }
        if (parent.options().keyed() || parent.options().parent() != null || parent.isKey()) {
            throw new BadParent("parent '" + options.parent() + "' must be a plain limit (not keyed, not a key, "
                    + "with no parent of its own)");
        }
    }

    /** The limits the slot loop looks at: those with waiting calls, in name order. */
    public WaitingLimits withWaitingCalls() throws StoreUnavailable {
        // one statement, committed as it answers: the loop reads this at every slot, so a transaction of its own
        // with a separate read of the clock (three round trips through JPA) would make every send later
        return tx.runAlone(c -> {
            try (PreparedStatement ps = c.prepareStatement(WITH_WAITING_CALLS);
                 java.sql.ResultSet rs = ps.executeQuery()) {
                Instant now = null;
                List<WaitingLimits.Due> due = new java.util.ArrayList<>();
                while (rs.next()) {
                    now = Times.get(rs, "now");
                    String limit = rs.getString("limit_name");
                    if (limit != null) {
                        Instant paused = Times.get(rs, "paused_until");
                        due.add(new WaitingLimits.Due(limit, Times.get(rs, "next_slot_at"),
                                paused != null && paused.isAfter(now) ? paused : null));
                    }
                }
                return new WaitingLimits(now, System.nanoTime(), due);
            }
        });
    }

    /**
     * Removes a limit that has no live (waiting or granted) calls and names no child, with its history (a template:
     * with its keys). One transaction: the slot and the limit's row are locked (no grant, join or key open runs on
     * it meanwhile), checked, and only then is anything deleted, a batch per statement; a refusal changes nothing.
     * A call that joins one of a template's keys meanwhile keeps it (the foreign key refuses the removal, which rolls
     * back whole, and the answer counts the live calls again).
     */
    public LimitRemoval remove(String name, String actor) throws StoreUnavailable {
        try {
            return tx.run(c -> {
                if (!exists(c, LOCK_SLOT, name) || !exists(c, LOCK_LIMIT, name)) {
                    return new LimitRemoval(false, false, 0);
                }
                long live = liveCalls(c, name);
                if (live > 0) {
                    return new LimitRemoval(false, true, live);
                }
                List<String> children = children(c, name);
                if (!children.isEmpty()) {
                    throw new BadParent("limit '" + name + "' is the parent of " + children
                            + ": change or remove those first");
                }
                while (batch(c, DROP_FINISHED_CALLS, name, name) == BATCH) {
                    // the calls first: nothing cascades to them
                }
                while (batch(c, DROP_SENDS, name, name) == BATCH) {
                    // the send log before the limits whose cascade would take it in one statement
                }
                while (batch(c, DROP_KEYS, name) == BATCH) {
                    // a template's keys
                }
                try (PreparedStatement ps = c.prepareStatement(DROP_LIMIT)) {
                    ps.setString(1, name);
                    ps.executeUpdate();
                }
                ActionLog.record(c, new ActionLog.Entry(actor, "remove-limit", "limit " + name, null));
                return new LimitRemoval(true, true, 0);
            });
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof java.sql.SQLException sql && "23503".equals(sql.getSQLState())) {
                return new LimitRemoval(false, true, tx.run(c -> liveCalls(c, name)));
            }
            throw e;
        }
    }

    private static boolean exists(java.sql.Connection c, String lock, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lock)) {
            ps.setString(1, name);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static List<String> children(java.sql.Connection c, String name) throws java.sql.SQLException {
        try (PreparedStatement ps = c.prepareStatement(CHILDREN.replace("?1", "?"))) {
            ps.setString(1, name);
            List<String> out = new java.util.ArrayList<>();
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        }
    }

    /** One batch of a removal: the statement's names, then the batch size; how many rows went. */
    private static int batch(java.sql.Connection c, String sql, String... names) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (String n : names) {
                ps.setString(i++, n);
            }
            ps.setInt(i, BATCH);
            return ps.executeUpdate();
        }
    }

    private static long liveCalls(java.sql.Connection c, String name) throws java.sql.SQLException {
        try (PreparedStatement ps = c.prepareStatement(LIVE_CALLS)) {
            ps.setString(1, name);
            ps.setString(2, name);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Adds the limit unless one of that name exists; true when it was added. */
    public boolean declare(String name, Pace pace) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(DECLARE)) {
                ps.setString(1, name);
                ps.setInt(2, pace.calls());
                ps.setLong(3, pace.window().toMillis());
                return ps.executeUpdate() == 1;
            }
        });
    }
}
