package dev.gate.engine;

import dev.gate.dev.GateDatabase;
import dev.gate.engine.HistoryChecks.Call;
import dev.gate.engine.HistoryChecks.Send;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

/**
 * The tables a history's lines hold, read every {@link #EVERY_MS} ms while it runs and kept: the retention prunes old
 * calls and a removed limit takes its history with it, so the checks read what the tables held, not what is left.
 * Each row is kept as last seen; a call that leaves the table is noted with the state it was last seen in, and when.
 */
final class TableWatch implements AutoCloseable {

    static final long EVERY_MS = 150;

    /** The call of a send a limit declared again took back from its removal (its own call ended with the limit). */
    static final long TAKEN_BACK = 0;

    /** A call that left the table: as it was last seen, and when it was first missed. */
    record Gone(Call call, Instant missedAt) {
    }

    private final GateDatabase db;
    private final String[] names;
    private final ToIntFunction<String> limitOf;
    private final Map<Long, Call> calls = new HashMap<>();
    private final Map<String, TreeMap<Long, Send>> sends = new TreeMap<>();
    private final List<Gone> gone = new ArrayList<>();
    private final Thread watcher;
    private volatile boolean stopped;

    TableWatch(GateDatabase db, String[] names, ToIntFunction<String> limitOf) {
        this.db = db;
        this.names = names.clone();
        this.limitOf = limitOf;
        this.watcher = new Thread(this::watch, names[0] + "-watch");
        watcher.setDaemon(true);
        watcher.start();
    }

    private void watch() {
        while (!stopped) {
            try {
                read();
                Thread.sleep(EVERY_MS);
            } catch (InterruptedException e) {
                return;
            } catch (SQLException e) {
                // the database cut for a copy is not the watch's: it reads directly; a failed read is read again
            }
        }
    }

    /** Reads once more, then stops: what the tables hold at the end is kept too. */
    @Override
    public void close() throws SQLException {
        stopped = true;
        watcher.interrupt();
        try {
            watcher.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        read();
    }

    synchronized Map<Long, Call> calls() {
        return Map.copyOf(calls);
    }

    /** Each line's send log, every unit ever seen in it, in order. */
    synchronized Map<String, List<Send>> sends() {
        Map<String, List<Send>> out = new TreeMap<>();
        sends.forEach((line, log) -> out.put(line, List.copyOf(log.values())));
        return out;
    }

    synchronized List<Gone> gone() {
        return List.copyOf(gone);
    }

    private void read() throws SQLException {
        Map<Long, Call> now = new HashMap<>();
        Map<String, List<Send>> logged = new HashMap<>();
        Instant readAt;
        try (Connection c = db.connect()) {
            // the calls and the sends in one snapshot: a call seen granted is seen with its units (seed 101088: a
            // removal that committed between the two reads took the units of a call the first had just seen)
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("""
                    SELECT id, limit_name, call_class, program, owner, state, enqueued_at, granted_at, done_at, outcome_status,
                           deadline_at, concurrency_key, dedupe_key, submission_key, cost, aged, clock_timestamp() AS now
                    FROM gate_call WHERE split_part(limit_name, '~', 1) = ANY (?)""")) {
                ps.setArray(1, c.createArrayOf("varchar", names));
                readAt = Instant.now();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Integer status = rs.getObject("outcome_status") == null ? null : rs.getInt("outcome_status");
                        String line = rs.getString("limit_name");
                        now.put(rs.getLong("id"), new Call(rs.getLong("id"), limitOf.applyAsInt(line), line,
                                rs.getInt("call_class"), rs.getString("program"), rs.getString("owner"),
                                rs.getString("state"),
                                at(rs, "enqueued_at"), at(rs, "granted_at"), at(rs, "done_at"), status,
                                at(rs, "deadline_at"), rs.getString("concurrency_key"), rs.getString("dedupe_key"),
                                rs.getString("submission_key"), rs.getInt("cost"), rs.getBoolean("aged")));
                    }
                }
            }
            // a limit made anew after its removal takes back the sends its windows still count, as call 0: kept
            // below only where the watch never saw it under its call (made within a read's interval of the removal)
            try (PreparedStatement ps = c.prepareStatement("SELECT limit_name, call_id, sent_at, slot_at, seq, "
                    + "program, owner, call_class FROM gate_send WHERE split_part(limit_name, '~', 1) = ANY (?) "
                    + "ORDER BY seq")) {
                ps.setArray(1, c.createArrayOf("varchar", names));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String line = rs.getString("limit_name");
                        long id = rs.getLong("call_id");
                        Instant sent = at(rs, "sent_at");
                        logged.computeIfAbsent(line, k -> new ArrayList<>()).add(new Send(limitOf.applyAsInt(line),
                                id, sent, at(rs, "slot_at"), rs.getLong("seq")));
                        if (rs.getString("owner") != null) {
                            // a consume without a key: no call row, its units are its record (one per unit of its cost)
                            Call seen = now.get(id);
                            now.put(id, seen != null ? withCost(seen, seen.cost() + 1)
                                    : new Call(id, limitOf.applyAsInt(line), line, rs.getInt("call_class"),
                                    rs.getString("program"), rs.getString("owner"), "DONE", sent, sent, sent, null,
                                    null, null, null, null, 1, false));
                        }
                    }
                }
            }
            c.commit();
        }
        synchronized (this) {
            Set<Long> missing = new HashSet<>(calls.keySet());
            missing.removeAll(now.keySet());
            for (long id : missing) {
                if (gone.stream().noneMatch(g -> g.call().id() == id)) {
                    gone.add(new Gone(calls.get(id), readAt));
                }
            }
            calls.putAll(now);
            // a removed and re-declared limit numbers its units from 1 again: a unit is its line, seq and time
            logged.forEach((line, log) -> {
                TreeMap<Long, Send> kept = sends.computeIfAbsent(line, k -> new TreeMap<>());
                for (Send s : log) {
                    if (s.callId() == TAKEN_BACK
                            && kept.values().stream().anyMatch(k -> k.sentAt().equals(s.sentAt()))) {
                        continue; // seen before, under its call
                    }
                    long key = s.sentAt().toEpochMilli() * 1_000_000L + s.seq();
                    kept.putIfAbsent(key, s);
                }
            });
        }
    }

    private static Call withCost(Call c, int cost) {
        return new Call(c.id(), c.limit(), c.line(), c.rank(), c.program(), c.owner(), c.state(), c.enqueued(),
                c.granted(), c.done(), c.status(), c.deadline(), c.concurrencyKey(), c.dedupeKey(), c.submissionKey(),
                cost, c.aged());
    }

    private static Instant at(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }
}
