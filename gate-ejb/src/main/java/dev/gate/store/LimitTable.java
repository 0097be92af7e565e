package dev.gate.store;

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
 * (the {@link Limit} entity, its parent checked). Removed with their history by {@link LimitRemovals}; paused by an
 * operator through {@link OperatorPauses}.
 */
public final class LimitTable {

    // Declared at deployment by every server: the first adds the limit, the table stays the truth after.
    private static final String DECLARE = """
            INSERT INTO gate_limit (name, calls, window_ms) VALUES (?, ?, ?)
            ON CONFLICT (name) DO NOTHING""";

    // A change's time, on the database's clock (clock_timestamp(), not the transaction's start).
    private static final String TOUCH = "UPDATE gate_limit SET updated_at = clock_timestamp() WHERE name = ?";

    // A changed limit's waiting calls that cost more than its smallest rule's calls now: they could never go within it
    // (a costlier head would go once the window is empty and overfill it), so they leave the line with the change.
    // Likewise a costlier call on a limit made keyed (a parent is for keyed limits only): a keyed limit's calls cost
    // one unit (its grants take one of the parent's sends each: one of cost 5 would be counted there as 1).
    static final String CANCEL_COSTLIER = """
            UPDATE gate_call c SET state = 'CANCELLED', done_at = clock_timestamp()
            FROM gate_limit l
            WHERE c.limit_name = ? AND c.state = 'WAITING' AND l.name = c.limit_name
              AND (c.cost > least(l.calls, coalesce((SELECT min(r.calls) FROM gate_limit_rule r
                                                     WHERE r.limit_name = l.name), l.calls))
                   OR (c.cost > 1 AND l.keyed))
            RETURNING c.id, c.limit_name, c.call_class, c.owner, c.state""";

    // A keyed limit made plain keeps no keys: its keys' waiting calls would go by their keys' rules alone, which its
    // own rule does not count. They leave the line with the change, as a costlier call does; a join that met the
    // change's commit (its key opened before it) is taken out by the same statement once the change committed
    // (strays). (A plain limit made keyed keeps its waiting calls of one unit: they go in its own line, by its rule
    // and its parent's.)
    static final String CANCEL_KEYS_CALLS = """
            UPDATE gate_call c SET state = 'CANCELLED', done_at = clock_timestamp()
            FROM gate_limit l
            WHERE l.name = ? AND NOT l.keyed AND c.state = 'WAITING'
              AND c.limit_name IN (SELECT k.name FROM gate_limit k WHERE k.template_name = l.name)
            RETURNING c.id, c.limit_name, c.call_class, c.owner, c.state""";

    /**
     * What a change did: whether it made the limit, and the waiting calls it took out of the line: too costly now, or
     * in its keys' lines when it was made plain.
     */
    public record Change(boolean created, List<Leases.Cleared> tooCostly, List<Leases.Cleared> keysCalls) {
    }

    // A re-declared limit's vendor count holds no longer than its new declaration allows (its longest window, its
    // maxCoolDown), from when it was reported.
    private static final String RECAP_VENDOR_COUNT = """
            UPDATE gate_slot s SET vendor_reset_at = least(s.vendor_reset_at, s.vendor_reported_at
                    + least(l.max_cooldown_ms, greatest(l.window_ms, coalesce((SELECT max(r.window_ms)
                                                                               FROM gate_limit_rule r
                                                                               WHERE r.limit_name = l.name), 0)))
                      * interval '1 millisecond')
            FROM gate_limit l WHERE l.name = s.limit_name AND s.limit_name = ? AND s.vendor_reset_at > clock_timestamp()""";

    // A re-declared limit's adaptive rate starts again from its declared calls (the last cut was against the old ones).
    private static final String RESTART_ADAPTIVE =
            "UPDATE gate_slot SET adaptive_calls = NULL, adaptive_cut_at = NULL WHERE limit_name = ?";

    /**
     * A declaration the tables refuse: a parent that cannot be one (missing, keyed, a key, or under a parent itself;
     * or a parent made keyed), or an aligned rule whose zone the database reads otherwise ({@link ZoneAgreement}).
     */
    public static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
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
    public Change put(String name, Pace pace, LimitOptions options, Duration starvingAfter, String actor)
            throws StoreUnavailable {
        checkZones(pace, options);
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
    public Optional<List<Leases.Cleared>> rePace(String name, Pace pace, String actor) throws StoreUnavailable {
        return jpa.run(em -> {
            Limit limit = em.find(Limit.class, name);
            if (limit == null) {
                return Optional.<List<Leases.Cleared>>empty();
            }
            boolean burstLowered = limit.rePace(pace);
            em.flush();
            em.createNativeQuery(TOUCH).setParameter(1, name).executeUpdate();
            ActionLog.record(em, new ActionLog.Entry(actor, "change-limit", "limit " + name, rule(pace)
                    + (burstLowered ? ", its burst lowered to " + pace.calls() + " (at most the calls)" : "")));
            return Optional.of(tooCostly(em, name, actor));
        });
    }

    /** The waiting calls costlier than the limit's smallest rule now, out of the line (recorded, when any). */
    private static List<Leases.Cleared> tooCostly(EntityManager em, String name, String actor) {
        return cancel(em, CANCEL_COSTLIER, name, actor, " waiting calls: their cost is above the calls of the limit's "
                + "smallest rule now, or above the one unit of a keyed limit's call");
    }

    /** A limit made plain: its keys' waiting calls, out of the line (recorded, when any). */
    private static List<Leases.Cleared> keysCalls(EntityManager em, String name, String actor) {
        return cancel(em, CANCEL_KEYS_CALLS, name, actor, " waiting calls of its keys: the limit is not keyed now, "
                + "and its own rule would not count them");
    }

    /** The calls a change's statement took out of the line, recorded as one cancel of {@code actor}'s. */
    private static List<Leases.Cleared> cancel(EntityManager em, String sql, String name, String actor, String why) {
        List<Leases.Cleared> cleared = em.unwrap(org.hibernate.Session.class).doReturningWork(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, name);
                return Leases.cleared(ps);
            }
        });
        if (!cleared.isEmpty()) {
            ActionLog.record(em, new ActionLog.Entry(actor, "cancel-call", "limit " + name, cleared.size() + why));
        }
        return cleared;
    }

    /** The database reads each aligned rule's zone as the rules do (a read alone, before the change's transaction). */
    private void checkZones(Pace pace, LimitOptions options) throws StoreUnavailable {
        List<Pace> rules = new java.util.ArrayList<>(options.moreRules());
        rules.add(pace);
        if (rules.stream().noneMatch(Pace::isAligned)) {
            return;
        }
        try {
            tx.run(c -> {
                Instant now;
                try (PreparedStatement ps = c.prepareStatement("SELECT clock_timestamp()");
                     java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    now = Times.get(rs, "clock_timestamp");
                }
                ZoneAgreement.check(c, rules, now);
                return null;
            });
        } catch (ZoneAgreement.Disagrees e) {
            throw new Refused(e.getMessage());
        }
    }

    /** A rule as the action log says it: "600 per 60 s". */
    private static String rule(Pace pace) {
        long ms = pace.window().toMillis();
        return pace.calls() + " per " + (ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms");
    }

    // No lock on the limit row first: FOR UPDATE on gate_limit would block every insert that references it (joins,
    // grants) until the change commits; the update itself takes the weaker lock those inserts do not wait for.
    // Two operators changing one limit at once: the last one wins. updated_at on the database clock.
    private static Change putIn(EntityManager em, String name, Pace pace, LimitOptions options,
                                Duration starvingAfter, String actor) {
        checkParent(em, name, options);
        Limit limit = em.find(Limit.class, name);
        String rule = rule(pace);
        if (limit == null) {
            em.persist(new Limit(name, pace, options, starvingAfter));
            em.flush();
            ActionLog.record(em, new ActionLog.Entry(actor, "create-limit", "limit " + name, rule));
            return new Change(true, List.of(), List.of());
        }
        limit.change(pace, options, starvingAfter);
        em.flush();
        em.createNativeQuery(TOUCH).setParameter(1, name).executeUpdate();
        em.createNativeQuery(RESTART_ADAPTIVE).setParameter(1, name).executeUpdate();
        em.createNativeQuery(RECAP_VENDOR_COUNT).setParameter(1, name).executeUpdate();
        ActionLog.record(em, new ActionLog.Entry(actor, "change-limit", "limit " + name, rule));
        return new Change(false, tooCostly(em, name, actor), keysCalls(em, name, actor));
    }

    /**
     * The calls a join put in a key's line of a limit made plain as the change committed (the key opened before it),
     * out of the line once it has (recorded, when any).
     */
    public List<Leases.Cleared> strays(String name, String actor) throws StoreUnavailable {
        return jpa.run(em -> keysCalls(em, name, actor));
    }

    // The limits that name this one as their parent (also checked by a removal, LimitRemovals).
    static final String CHILDREN = "SELECT name FROM gate_limit WHERE parent_name = ?1 AND keyed";

    private static void checkParent(EntityManager em, String name, LimitOptions options) {
        if (options.keyed() || options.parent() != null) {
            List<?> children = em.createNativeQuery(CHILDREN).setParameter(1, name).getResultList();
            if (!children.isEmpty()) {
                throw new Refused("it is the parent of " + children + ": a parent stays a plain limit");
            }
        }
        if (options.parent() == null) {
            return;
        }
        if (options.parent().equals(name)) {
            throw new Refused("a limit is not its own parent");
        }
        Limit parent = em.find(Limit.class, options.parent());
        if (parent == null) {
            throw new Refused("no parent limit named '" + options.parent() + "'");
        }
        if (parent.options().keyed() || parent.options().parent() != null || parent.isKey()) {
            throw new Refused("parent '" + options.parent() + "' must be a plain limit (not keyed, not a key, "
                    + "with no parent of its own)");
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
