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
import java.util.Optional;

/**
 * The vendor's answers fetched and not yet written with a checkpoint ({@code gate_backfill_fetch}). Each is kept the
 * moment it arrives, in its own transaction, outside the chunk's: a chunk cut after its fetches (a stop, a failed
 * item, a server restart) rolls back its results and checkpoint, but not these, so the items read again are not
 * fetched again. The writer moves them to the results in the chunk's transaction.
 */
@Stateless
@LocalBean
public class FetchJournal {

    private static final String KEEP = """
            INSERT INTO gate_backfill_fetch (job_instance_id, symbol, day, status, body) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (job_instance_id, symbol, day) DO NOTHING""";

    private static final String KEPT = """
            SELECT status, body FROM gate_backfill_fetch WHERE job_instance_id = ? AND symbol = ? AND day = ?""";

    @Resource(lookup = "java:jboss/datasources/GateDS")
    DataSource database;

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void keep(long instanceId, HistoryResult result) throws SQLException {
        try (Connection c = database.getConnection(); PreparedStatement ps = c.prepareStatement(KEEP)) {
            ps.setLong(1, instanceId);
            ps.setString(2, result.item().symbol());
            ps.setDate(3, Date.valueOf(result.item().day()));
            ps.setInt(4, result.status());
            ps.setString(5, result.body());
            ps.executeUpdate();
        }
    }

    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Optional<HistoryResult> kept(long instanceId, HistoryItem item) throws SQLException {
        try (Connection c = database.getConnection(); PreparedStatement ps = c.prepareStatement(KEPT)) {
            ps.setLong(1, instanceId);
            ps.setString(2, item.symbol());
            ps.setDate(3, Date.valueOf(item.day()));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new HistoryResult(item, rs.getInt(1), rs.getString(2)))
                        : Optional.empty();
            }
        }
    }
}
