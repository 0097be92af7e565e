package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.rules.LimitKey;
import dev.gate.domain.Call;
import dev.gate.domain.Limit;
import dev.gate.domain.SavedSends;
import dev.gate.domain.Slot;
import jakarta.persistence.EntityManager;
import org.hibernate.Session;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The live numbers of the limits, read through the domain entities in one transaction (one snapshot) on the
 * database's clock: each limit's rule, the sends its current window holds, its next slot and cool-down, the saved
 * sends, and who waits in each class and for how long.
 */
public final class LineView {

    // One limit's waiting calls per class, not a count of every limit's line. WAITING as a literal: the partial
    // line index serves only a predicate it can prove. Grouped by the class alone: grouping by the limit's name too
    // compared the name (a collated string) for each of 100,000 waiting rows and took twice as long.
    private static final String WAITING_IN_LIMIT = """
            SELECT c.callClass, count(c), min(c.enqueuedAt) FROM Call c
            WHERE c.limitName = :limit AND c.state = dev.gate.api.CallState.WAITING
            GROUP BY c.callClass""";

    // Every limit's sends in its current window, in one statement (one index range per limit), not one query per
    // limit: with thousands of limits the status page would otherwise make thousands of round trips.
    private static final String USED_IN_WINDOWS = """
            SELECT l.name, (SELECT count(*) FROM gate_send s
                            WHERE s.limit_name = l.name AND s.sent_at > """ + since("CAST(?1 AS timestamptz)", "l") + """
            )
            FROM gate_limit l WHERE """;

    // Where a rule's current window starts (exclusive): window ago, or (an aligned rule) its block's start.
    private static String since(String now, String rule) {
        return ("CASE WHEN %2$s.aligned_zone IS NULL THEN %1$s - %2$s.window_ms * interval '1 millisecond' "
                + "ELSE gate_block_start(%1$s, %2$s.aligned_zone, %2$s.aligned_at, %2$s.window_ms) "
                + "- interval '1 microsecond' END").formatted(now, rule);
    }

    // Per keyed limit, its open keys (their count, kept by trigger: no scan of 100,000 keys at every read).
    private static final String OPEN_KEYS = """
            SELECT t.name, coalesce(n.open_keys, 0)
            FROM gate_limit t LEFT JOIN gate_key_count n ON n.template_name = t.name WHERE t.keyed""";

    // How often each limit's line was found full, and when last.
    private static final String LINE_FULL = "SELECT f.limit_name, f.refused, f.last_at FROM gate_line_full f";

    // A keyed limit's waiting calls: its keys' lines together, per class.
    private static final String WAITING_IN_KEYS = """
            SELECT c.call_class, count(*), min(c.enqueued_at) FROM gate_call c
            JOIN gate_limit k ON k.name = c.limit_name
            WHERE k.template_name = ?1 AND c.state = 'WAITING'
            GROUP BY c.call_class""";

    // Each limit's sends of the last 10 minutes in 10 s buckets (0: the current one), an index range per limit.
    private static final String SENDS_PER_TEN_SECONDS = """
            SELECT l.name, b.ago, b.sends
            FROM gate_limit l,
                 LATERAL (SELECT floor(extract(epoch FROM (CAST(?1 AS timestamptz) - s.sent_at)) / 10)::int AS ago,
                                 count(*) AS sends
                          FROM gate_send s
                          WHERE s.limit_name = l.name AND s.sent_at > CAST(?1 AS timestamptz) - interval '10 minutes'
                            AND s.sent_at <= CAST(?1 AS timestamptz)
                          GROUP BY 1) b
            WHERE l.template_name IS NULL""";

    // Calls that ended without a grant or without an outcome in the last hour (the finished-calls index).
    private static final String ENDED_LAST_HOUR = """
            SELECT c.limit_name, c.state, count(*) FROM gate_call c
            WHERE c.state IN ('EXPIRED', 'ABANDONED') AND c.done_at > CAST(?1 AS timestamptz) - interval '1 hour'""";

    // Grants the starvation guard made in the last hour (a partial index holds only those).
    private static final String AGED_LAST_HOUR = """
            SELECT c.limit_name, count(*) FROM gate_call c
            WHERE c.aged AND c.granted_at > CAST(?1 AS timestamptz) - interval '1 hour'""";

    // The more rules of every declared limit (or of one; keys' copies not) with the sends in each rule's current window.
    private static final String RULES_USED = """
            SELECT r.limit_name, r.calls, r.window_ms,
                   (SELECT count(*) FROM gate_send s
                    WHERE s.limit_name = r.limit_name AND s.sent_at > """ + since("CAST(?1 AS timestamptz)", "r") + """
            ), r.aligned_zone, r.aligned_at::text
            FROM gate_limit_rule r JOIN gate_limit l ON l.name = r.limit_name
            WHERE l.template_name IS NULL""";

    private static final int BUCKETS = 60;

    private final Jpa jpa;

    public LineView(Jpa jpa) {
        this.jpa = jpa;
    }

    public List<LimitFigures> limits() throws StoreUnavailable {
        return jpa.run(em -> {
            readOnly(em);
            Instant now = Jpa.dbNow(em);
            List<Limit> limits = em.createNamedQuery(Limit.ALL, Limit.class).getResultList();
            Map<String, Slot> slots = new HashMap<>();
            em.createQuery("SELECT s FROM Slot s WHERE s.limitName IN (SELECT l.name FROM Limit l WHERE l.templateName IS NULL)",
                            Slot.class).getResultStream()
                    .forEach(x -> slots.put(x.limitName(), x));
            Map<String, Long> saved = new HashMap<>();
            em.createQuery("SELECT v FROM SavedSends v", SavedSends.class).getResultStream()
                    .forEach(v -> saved.put(v.limitName(), v.count()));
            return statuses(limits, now, waitingByClass(em.createNamedQuery(Call.WAITING_BY_CLASS, Object[].class)
                    .getResultList(), now), slots, saved, usedInWindows(em, now, null), recent(em, now, null),
                    rulesUsed(em, now, null),
                    openKeys(em, null), lineFull(em, null));
        });
    }

    /** One limit's numbers; empty when there is no such limit. Reads that limit's rows only. */
    public Optional<LimitFigures> limit(String name) throws StoreUnavailable {
        return jpa.run(em -> {
            readOnly(em);
            Limit limit = em.find(Limit.class, name);
            Slot slot = limit == null ? null : em.find(Slot.class, name);
            if (slot == null) {
                return Optional.<LimitFigures>empty(); // none, or removed since (each statement sees the latest commits)
            }
            Instant now = Jpa.dbNow(em);
            SavedSends saved = em.find(SavedSends.class, name);
            List<Object[]> rows = new ArrayList<>();
            for (Object[] r : em.createQuery(WAITING_IN_LIMIT, Object[].class).setParameter("limit", name)
                    .getResultList()) {
                rows.add(new Object[] {name, r[0], r[1], r[2]});
            }
            if (limit.options().keyed()) {
                for (Object row : em.createNativeQuery(WAITING_IN_KEYS).setParameter(1, name).getResultList()) {
                    Object[] r = (Object[]) row;
                    rows.add(new Object[] {name, CallClass.ofRank(((Number) r[0]).intValue()),
                            ((Number) r[1]).longValue(), r[2] instanceof Instant i ? i : Times.of(r[2])});
                }
            }
            Waiting waiting = waitingByClass(rows, now);
            return statuses(List.of(limit), now, waiting, Map.of(name, slot),
                    saved == null ? Map.of() : Map.of(name, saved.count()), usedInWindows(em, now, name),
                    recent(em, now, name),
                    rulesUsed(em, now, name), openKeys(em, name), lineFull(em, name)).stream().findFirst();
        });
    }

    // A read: no snapshots kept for a dirty check that never finds anything.
    private static void readOnly(EntityManager em) {
        em.unwrap(Session.class).setDefaultReadOnly(true);
    }

    /** Per limit and class: how many calls wait, and for how long the oldest has. */
    private record Waiting(Map<String, Map<CallClass, Long>> count, Map<String, Map<CallClass, Long>> oldestMs) {
    }

    /** Rows of limit, class, count, oldest arrival; a key's rows count as its template's (its keys together). */
    private static Waiting waitingByClass(List<Object[]> rows, Instant now) {
        Map<String, Map<CallClass, Long>> waiting = new HashMap<>();
        Map<String, Map<CallClass, Long>> oldestMs = new HashMap<>();
        for (Object[] r : rows) {
            String limit = LimitKey.templateOf((String) r[0]);
            CallClass cls = (CallClass) r[1];
            waiting.computeIfAbsent(limit, k -> new EnumMap<>(CallClass.class)).merge(cls, (Long) r[2], Long::sum);
            oldestMs.computeIfAbsent(limit, k -> new EnumMap<>(CallClass.class))
                    .merge(cls, Duration.between((Instant) r[3], now).toMillis(), Math::max);
        }
        return new Waiting(waiting, oldestMs);
    }

    /** Per keyed limit (of all, or {@code only}), its open keys. */
    private static Map<String, Long> openKeys(EntityManager em, String only) {
        Map<String, Long> out = new HashMap<>();
        String sql = only == null ? OPEN_KEYS : OPEN_KEYS + " AND t.name = ?1";
        var query = em.createNativeQuery(sql);
        if (only != null) {
            query.setParameter(1, only);
        }
        for (Object row : query.getResultList()) {
            Object[] r = (Object[]) row;
            out.put((String) r[0], ((Number) r[1]).longValue());
        }
        return out;
    }

    /** A limit's refusals for a full line: how many, and the last. */
    private record Full(long refused, Instant lastAt) {
    }

    /** Per limit (of all, or {@code only}) whose line was ever found full. */
    private static Map<String, Full> lineFull(EntityManager em, String only) {
        Map<String, Full> out = new HashMap<>();
        var query = em.createNativeQuery(only == null ? LINE_FULL : LINE_FULL + " WHERE f.limit_name = ?1");
        if (only != null) {
            query.setParameter(1, only);
        }
        for (Object row : query.getResultList()) {
            Object[] r = (Object[]) row;
            out.put((String) r[0], new Full(((Number) r[1]).longValue(),
                    r[2] instanceof Instant i ? i : Times.of(r[2])));
        }
        return out;
    }

    /** Per limit (of all, or of {@code only}): its sends per 10 s over the last 10 minutes, its ended calls. */
    private static Map<String, LimitFigures.Recent> recent(EntityManager em, Instant now, String only) {
        Map<String, long[]> buckets = new HashMap<>();
        for (Object row : filtered(em, SENDS_PER_TEN_SECONDS, " AND l.name = ?2", now, only)) {
            Object[] r = (Object[]) row;
            int ago = ((Number) r[1]).intValue();
            if (ago >= 0 && ago < BUCKETS) {
                buckets.computeIfAbsent((String) r[0], k -> new long[BUCKETS])[BUCKETS - 1 - ago] =
                        ((Number) r[2]).longValue();
            }
        }
        Map<String, long[]> ended = new HashMap<>();
        for (Object row : filtered(em, ENDED_LAST_HOUR + "%s GROUP BY 1, 2", " AND c.limit_name = ?2", now, only)) {
            Object[] r = (Object[]) row;
            ended.computeIfAbsent((String) r[0], k -> new long[2])["EXPIRED".equals(r[1]) ? 0 : 1] =
                    ((Number) r[2]).longValue();
        }
        Map<String, Long> aged = new HashMap<>();
        for (Object row : filtered(em, AGED_LAST_HOUR + "%s GROUP BY 1", " AND c.limit_name = ?2", now, only)) {
            Object[] r = (Object[]) row;
            aged.put((String) r[0], ((Number) r[1]).longValue());
        }
        Map<String, LimitFigures.Recent> out = new HashMap<>();
        for (String limit : union(union(buckets.keySet(), ended.keySet()), aged.keySet())) {
            long[] b = buckets.getOrDefault(limit, new long[BUCKETS]);
            long[] e = ended.getOrDefault(limit, new long[2]);
            out.put(limit, new LimitFigures.Recent(java.util.Arrays.stream(b).boxed().toList(), e[0], e[1],
                    aged.getOrDefault(limit, 0L)));
        }
        return out;
    }

    /** {@code sql} for every limit, or with {@code filter} for {@code only} (a "%s" in sql, else appended). */
    private static List<?> filtered(EntityManager em, String sql, String filter, Instant now, String only) {
        String text = sql.contains("%s") ? sql.formatted(only == null ? "" : filter) : sql + (only == null ? "" : filter);
        var query = em.createNativeQuery(text).setParameter(1, now.atOffset(ZoneOffset.UTC));
        if (only != null) {
            query.setParameter(2, only);
        }
        return query.getResultList();
    }

    /**
     * Per limit (of all, or of {@code only}): what its own rule's current window holds (an aligned rule's block), one
     * statement for the list and for one limit.
     */
    private static Map<String, Long> usedInWindows(EntityManager em, Instant now, String only) {
        Map<String, Long> used = new HashMap<>();
        var query = em.createNativeQuery(USED_IN_WINDOWS + (only == null ? " l.template_name IS NULL" : " l.name = ?2"))
                .setParameter(1, now.atOffset(ZoneOffset.UTC));
        if (only != null) { // a key's too
            query.setParameter(2, only);
        }
        for (Object row : query.getResultList()) {
            Object[] r = (Object[]) row;
            used.put((String) r[0], ((Number) r[1]).longValue());
        }
        return used;
    }

    /** Per limit (of all, or of {@code only}): its more rules, by window, with their windows' use. */
    private static Map<String, List<LimitFigures.Rule>> rulesUsed(EntityManager em, Instant now, String only) {
        Map<String, List<LimitFigures.Rule>> out = new HashMap<>();
        for (Object row : filtered(em, RULES_USED + "%s ORDER BY r.limit_name, r.window_ms, r.calls",
                " AND r.limit_name = ?2", now, only)) {
            Object[] r = (Object[]) row;
            out.computeIfAbsent((String) r[0], k -> new ArrayList<>()).add(new LimitFigures.Rule(
                    SlotLock.pace(((Number) r[1]).intValue(), ((Number) r[2]).longValue(), (String) r[4], (String) r[5]),
                    ((Number) r[3]).longValue()));
        }
        return out;
    }

    private static java.util.Set<String> union(java.util.Set<String> a, java.util.Set<String> b) {
        java.util.Set<String> all = new java.util.HashSet<>(a);
        all.addAll(b);
        return all;
    }

    private static List<LimitFigures> statuses(List<Limit> limits, Instant now, Waiting waiting,
                                               Map<String, Slot> slots, Map<String, Long> saved,
                                               Map<String, Long> used, Map<String, LimitFigures.Recent> recent,
                                               Map<String, List<LimitFigures.Rule>> rules, Map<String, Long> openKeys,
                                               Map<String, Full> fulls) {
        List<LimitFigures> out = new ArrayList<>();
        for (Limit l : limits) {
            Slot slot = slots.get(l.name());
            if (slot == null) {
                continue; // removed since the limits were read (each statement sees the latest commits)
            }
            Full full = fulls.get(l.name());
            out.add(new LimitFigures(l, l.options(), slot, now, used.getOrDefault(l.name(), 0L), saved.getOrDefault(l.name(), 0L),
                    waiting.count().getOrDefault(l.name(), Map.of()),
                    waiting.oldestMs().getOrDefault(l.name(), Map.of()),
                    recent.getOrDefault(l.name(), LimitFigures.Recent.NONE), rules.getOrDefault(l.name(), List.of()),
                    openKeys.getOrDefault(l.name(), 0L), full == null ? 0 : full.refused(),
                    full == null ? null : full.lastAt()));
        }
        return out;
    }
}
