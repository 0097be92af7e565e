package dev.gate.store;

import dev.gate.client.CallClass;
import dev.gate.client.LimitStatus;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The live numbers of every limit, read in one transaction (one snapshot) on the database's clock. */
public final class LineView {

    private static final String LIMITS = """
            SELECT l.name, l.calls, l.window_ms, s.next_slot_at, coalesce(v.saved_sends, 0) AS saved_sends,
                   CASE WHEN s.paused_until > clock_timestamp() THEN s.paused_until END AS paused_until,
                   (SELECT count(*) FROM gate_send x
                    WHERE x.limit_name = l.name
                      AND x.sent_at > clock_timestamp() - l.window_ms * interval '1 millisecond') AS used
            FROM gate_limit l JOIN gate_slot s ON s.limit_name = l.name LEFT JOIN gate_saved v ON v.limit_name = l.name
            WHERE ?::varchar IS NULL OR l.name = ?
            ORDER BY l.name""";

    private static final String WAITING = """
            SELECT limit_name, call_class, count(*) AS waiting,
                   (extract(epoch FROM clock_timestamp() - min(enqueued_at)) * 1000)::bigint AS oldest_ms
            FROM gate_call WHERE state = 'WAITING' AND (?::varchar IS NULL OR limit_name = ?)
            GROUP BY limit_name, call_class""";

    private final Tx tx;

    public LineView(Tx tx) {
        this.tx = tx;
    }

    public List<LimitStatus> limits() throws StoreUnavailable {
        return tx.run(c -> read(c, null));
    }

    /** One limit's numbers; empty when there is no such limit. */
    public java.util.Optional<LimitStatus> limit(String name) throws StoreUnavailable {
        return tx.run(c -> read(c, name).stream().findFirst());
    }

    private static List<LimitStatus> read(Connection c, String only) throws SQLException {
        Map<String, Map<CallClass, Long>> waiting = new HashMap<>();
        Map<String, Map<CallClass, Long>> oldest = new HashMap<>();
        try (PreparedStatement ps = only(c.prepareStatement(WAITING), only); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String limit = rs.getString("limit_name");
                CallClass cls = CallClass.ofRank(rs.getInt("call_class"));
                waiting.computeIfAbsent(limit, k -> new EnumMap<>(CallClass.class)).put(cls, rs.getLong("waiting"));
                oldest.computeIfAbsent(limit, k -> new EnumMap<>(CallClass.class)).put(cls, rs.getLong("oldest_ms"));
            }
        }
        List<LimitStatus> out = new ArrayList<>();
        try (PreparedStatement ps = only(c.prepareStatement(LIMITS), only); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String name = rs.getString("name");
                out.add(new LimitStatus(name, rs.getInt("calls"), rs.getLong("window_ms"), rs.getLong("used"),
                        Times.get(rs, "next_slot_at"), Times.get(rs, "paused_until"), rs.getLong("saved_sends"),
                        waiting.getOrDefault(name, Map.of()),
                        oldest.getOrDefault(name, Map.of())));
            }
        }
        return out;
    }

    private static PreparedStatement only(PreparedStatement ps, String name) throws SQLException {
        ps.setString(1, name);
        ps.setString(2, name);
        return ps;
    }
}
