package dev.gate.batch.history;

import jakarta.annotation.Resource;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The vendor's answers fetched and not yet written with a checkpoint ({@code gate_backfill_fetch}), and the chunks'
 * results. Each answer is kept the moment it arrives, in its own transaction: a chunk cut after its fetches (a stop, a
 * failed item, a server restart) is read again on restart, and its items are not fetched again. The writer moves a
 * chunk's answers to the results in one short transaction of its own ({@link #write}); the step has no chunk
 * transaction, so nothing is held open while its items wait for the gate.
 */
@Stateless
@LocalBean
public class FetchJournal {

    private static final String KEEP = """
            INSERT INTO gate_backfill_fetch (job_instance_id, symbol, day, status, body) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (job_instance_id, symbol, day) DO NOTHING""";

    // Kept, or written already: a chunk whose results committed but whose checkpoint did not (the step runs without a
    // chunk transaction) is read again after a restart, and its items are not fetched again either.
    private static final String KEPT = """
            SELECT status, body FROM gate_backfill_fetch WHERE job_instance_id = ? AND symbol = ? AND day = ?
            UNION ALL
            SELECT status, body FROM gate_backfill_result WHERE job_instance_id = ? AND symbol = ? AND day = ?
            LIMIT 1""";

    // A chunk's result, and its answer leaves the journal (written twice, it changes nothing the second time).
    private static final String WRITE = """
            WITH kept AS (DELETE FROM gate_backfill_fetch WHERE job_instance_id = ? AND symbol = ? AND day = ?)
            INSERT INTO gate_backfill_result (job_instance_id, symbol, day, status, body)
            VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (job_instance_id, symbol, day) DO NOTHING""";

    @Resource(lookup = "java:jboss/datasources/GateDS")
    DataSource database;

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void keep(long instanceId, HistoryResult result) throws SQLException {
        try (Connection c = database.getConnection(); PreparedStatement ps = c.prepareStatement(KEEP)) {
            bindAnswer(ps, 1, instanceId, result);
            ps.executeUpdate();
        }
    }

    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Optional<HistoryResult> kept(long instanceId, HistoryItem item) throws SQLException {
        try (Connection c = database.getConnection(); PreparedStatement ps = c.prepareStatement(KEPT)) {
            bindItem(ps, 1, instanceId, item);
            bindItem(ps, 4, instanceId, item);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new HistoryResult(item, rs.getInt(1), rs.getString(2)))
                        : Optional.empty();
            }
        }
    }

    /** A chunk's results, in one short transaction of their own; their answers leave the journal in it. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void write(long instanceId, List<HistoryResult> results) throws SQLException {
        try (Connection c = database.getConnection(); PreparedStatement ps = c.prepareStatement(WRITE)) {
            for (HistoryResult r : results) {
                bindItem(ps, 1, instanceId, r.item());
                bindAnswer(ps, 4, instanceId, r);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** An item's key (job instance, symbol, day) from parameter {@code at} on. */
    private static void bindItem(PreparedStatement ps, int at, long instanceId, HistoryItem item) throws SQLException {
        ps.setLong(at, instanceId);
        ps.setString(at + 1, item.symbol());
        ps.setDate(at + 2, Date.valueOf(item.day()));
    }

    /** An answer: its item's key, then its status and body, from parameter {@code at} on. */
    private static void bindAnswer(PreparedStatement ps, int at, long instanceId, HistoryResult result)
            throws SQLException {
        bindItem(ps, at, instanceId, result.item());
        ps.setInt(at + 3, result.status());
        ps.setString(at + 4, result.body());
    }
}
