package dev.gate.dev;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a limit's send log the way the vendor would count it: every test, the in-server integration tests and the
 * benchmark judge the gate by this one reader. Plain JDBC on any {@link DataSource}, so it also runs inside WildFly.
 */
public final class SendLog {

    /** One send: when it went, and the beat slot it was granted for. */
    public record Send(Instant sentAt, Instant slotAt) {
    }

    private final DataSource dataSource;

    public SendLog(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** The limit's send times, in grant order. */
    public List<Instant> sends(String limit) throws SQLException {
        return withSlots(limit).stream().map(Send::sentAt).toList();
    }

    /** The limit's sends with their beat slots, in grant order. */
    public List<Send> withSlots(String limit) throws SQLException {
        List<Send> out = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT sent_at, slot_at FROM gate_send WHERE limit_name = ? ORDER BY sent_at, id")) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    OffsetDateTime slot = rs.getObject(2, OffsetDateTime.class);
                    out.add(new Send(rs.getObject(1, OffsetDateTime.class).toInstant(),
                            slot == null ? null : slot.toInstant()));
                }
            }
        }
        return out;
    }

    /**
     * The most sends that any window (t - window, t] holds, over every t: what the vendor counts. Written apart from
     * the gate's own window cap on purpose, so that a test does not judge the gate by the gate's code.
     *
     * @param sends send times, oldest first
     */
    public static int fullestWindow(List<Instant> sends, Duration window) {
        int most = 0;
        int from = 0;
        for (int i = 0; i < sends.size(); i++) {
            while (!sends.get(from).isAfter(sends.get(i).minus(window))) {
                from++;
            }
            most = Math.max(most, i - from + 1);
        }
        return most;
    }
}
