package dev.gate.batch.history;

import jakarta.annotation.Resource;
import jakarta.batch.api.chunk.AbstractItemWriter;
import jakarta.batch.runtime.context.JobContext;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Inject;
import jakarta.inject.Named;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.util.List;

/**
 * Writes a chunk's results in the chunk's transaction, which also commits the reader's checkpoint (the job
 * repository is in the same database): results and checkpoint are kept together or not at all; the answers leave
 * the fetch journal in the same transaction.
 */
@Named("historyWriter")
@Dependent
public class HistoryWriter extends AbstractItemWriter {

    // The result, and its answer leaves the journal: both with the checkpoint, or neither.
    private static final String INSERT = """
            WITH kept AS (DELETE FROM gate_backfill_fetch WHERE job_instance_id = ? AND symbol = ? AND day = ?)
            INSERT INTO gate_backfill_result (job_instance_id, symbol, day, status, body)
            VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (job_instance_id, symbol, day) DO NOTHING""";

    @Inject
    JobContext job;

    @Resource(lookup = "java:jboss/datasources/GateDS")
    DataSource database;

    @Override
    public void writeItems(List<Object> items) throws Exception {
        try (Connection c = database.getConnection(); PreparedStatement ps = c.prepareStatement(INSERT)) {
            for (Object o : items) {
                HistoryResult r = (HistoryResult) o;
                ps.setLong(1, job.getInstanceId());
                ps.setString(2, r.item().symbol());
                ps.setDate(3, Date.valueOf(r.item().day()));
                ps.setLong(4, job.getInstanceId());
                ps.setString(5, r.item().symbol());
                ps.setDate(6, Date.valueOf(r.item().day()));
                ps.setInt(7, r.status());
                ps.setString(8, r.body());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }
}
