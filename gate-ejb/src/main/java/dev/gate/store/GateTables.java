package dev.gate.store;

import dev.gate.domain.Tables.Holder;
import dev.gate.domain.Tables.Snapshot;
import dev.gate.domain.Tables.Table;
import dev.gate.domain.Tables.Vacuumed;

import dev.gate.rules.TableCare;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The gate's tables as the database keeps them (rows, dead rows, size on disk, whether autovacuum looks after them),
 * the oldest transaction that holds vacuum back, and a vacuum of one table. Read from the statistics views, which
 * cost no table scan; the vacuum runs outside any transaction, on a connection of its own for its run.
 */
public final class GateTables {

    // The gate's tables: autovacuum looks after one when it is on globally and not switched off for the table.
    // Sizes with their indexes and TOAST. Statistics, not counts: they lag by up to a second or so.
    static final String TABLES = """
            SELECT s.relname, s.n_live_tup, s.n_dead_tup, pg_total_relation_size(s.relid) AS bytes,
                   current_setting('autovacuum')::boolean
                     AND coalesce((SELECT o.option_value::boolean FROM pg_options_to_table(c.reloptions) o
                                   WHERE o.option_name = 'autovacuum_enabled'), true) AS autovacuum_on,
                   greatest(s.last_vacuum, s.last_autovacuum) AS last_vacuum, s.n_mod_since_analyze,
                   greatest(s.last_analyze, s.last_autoanalyze) AS last_analyze
            FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
            WHERE s.schemaname = current_schema() AND s.relname LIKE 'gate\\_%'
            ORDER BY s.relname""";

    // The oldest transaction of this database that holds a snapshot or a transaction id: every row dead since it
    // began stays, whoever vacuums. Other roles' sessions show only to a role allowed to read all statistics
    // (pg_read_all_stats, or pg_monitor): the gate says whether it can see them.
    static final String OLDEST = """
            SELECT a.pid, coalesce(nullif(a.application_name, ''), a.usename, '?') AS who, a.xact_start, a.state,
                   pg_has_role(current_user, 'pg_read_all_stats', 'member') AS sees_all,
                   current_setting('autovacuum')::boolean AS autovacuum_on, clock_timestamp() AS now
            FROM (SELECT 1) one
            LEFT JOIN pg_stat_activity a
              ON a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
                 AND a.backend_type = 'client backend' -- an autovacuum worker's xmin holds no vacuum back
                 AND (a.backend_xmin IS NOT NULL OR a.backend_xid IS NOT NULL)
            ORDER BY a.xact_start NULLS LAST
            LIMIT 1""";

    private static final Pattern TABLE_NAME = Pattern.compile("gate_[a-z_]{1,58}");

    private final DataSource dataSource;
    private final Tx tx;

    public GateTables(DataSource dataSource) {
        this.dataSource = dataSource;
        this.tx = new Tx(dataSource).ridingStalls(); // read by the table check, which nobody waits on
    }

    public Snapshot read() throws StoreUnavailable {
        return tx.run(c -> {
            List<Table> tables = new ArrayList<>();
            try (Statement s = c.createStatement()) {
                try (ResultSet rs = s.executeQuery(TABLES)) {
                    while (rs.next()) {
                        tables.add(new Table(new TableCare.Table(rs.getString("relname"), rs.getLong("n_live_tup"),
                                rs.getLong("n_dead_tup"), rs.getBoolean("autovacuum_on"),
                                Times.get(rs, "last_vacuum"), rs.getLong("n_mod_since_analyze"),
                                Times.get(rs, "last_analyze")), rs.getLong("bytes")));
                    }
                }
                try (ResultSet rs = s.executeQuery(OLDEST)) {
                    rs.next();
                    Optional<Holder> oldest = rs.getObject("pid") == null ? Optional.empty()
                            : Optional.of(new Holder(rs.getInt("pid"), rs.getString("who"),
                                    Times.get(rs, "xact_start"), rs.getString("state")));
                    return new Snapshot(Times.get(rs, "now"), List.copyOf(tables), rs.getBoolean("autovacuum_on"),
                            oldest, rs.getBoolean("sees_all"));
                }
            }
        });
    }

    /**
     * {@code VACUUM (SKIP_LOCKED, ANALYZE)} of one of the gate's tables, outside any transaction, cancelled by the
     * database after {@code timeout}. It takes no lock a grant, a join or retention needs (SHARE UPDATE EXCLUSIVE:
     * only another vacuum or a schema change conflicts, and then it skips rather than waits).
     */
    public Vacuumed vacuum(String table, Duration timeout) throws StoreUnavailable {
        return maintain("VACUUM (SKIP_LOCKED, ANALYZE) ", table, timeout);
    }

    /**
     * {@code ANALYZE (SKIP_LOCKED)} of one of the gate's tables, as {@link #vacuum} runs (the same lock, the same
     * timeout and skips): its statistics renewed, and with them every session's plans of its statements.
     */
    public Vacuumed analyze(String table, Duration timeout) throws StoreUnavailable {
        return maintain("ANALYZE (SKIP_LOCKED) ", table, timeout);
    }

    private Vacuumed maintain(String command, String table, Duration timeout) throws StoreUnavailable {
        if (!TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("not a gate table: " + table);
        }
        try (Connection c = dataSource.getConnection()) {
            // the engine's session timeouts (500 ms a statement) are lifted for this run; the next transaction on
            // this connection makes them again
            ConnectionSettings.lift(c);
            c.setAutoCommit(true);
            try {
                c.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis() + 5_000));
            } catch (java.sql.SQLFeatureNotSupportedException | AbstractMethodError unsupported) {
                // the driver's socketTimeout bounds the wait instead
            }
            try (Statement s = c.createStatement()) {
                s.execute("SET statement_timeout = '" + timeout.toMillis() + "ms'");
                try {
                    s.execute(command + table);
                    return skipped(s.getWarnings());
                } catch (SQLException e) {
                    if ("57014".equals(e.getSQLState())) {
                        return Vacuumed.TIMED_OUT;
                    }
                    throw e;
                } finally {
                    s.execute("RESET statement_timeout");
                }
            }
        } catch (SQLException e) {
            if (Tx.isUnavailable(e)) {
                throw new StoreUnavailable(e);
            }
            throw new IllegalStateException(command.trim() + " of " + table + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * PostgreSQL says a skip as a warning, not an error: "skipping vacuum of ... --- lock not available" (another
     * vacuum, a schema change), or, for a table of another role, "skipping ... --- only table or database owner can
     * vacuum it" (15) / "permission denied to vacuum ..., skipping it" (16 on).
     */
    static Vacuumed skipped(SQLWarning w) {
        Vacuumed found = Vacuumed.DONE;
        for (; w != null; w = w.getNextWarning()) {
            String m = String.valueOf(w.getMessage());
            if (m.contains("lock not available")) {
                return Vacuumed.SKIPPED_LOCKED;
            }
            if (m.contains("skipping")) {
                found = Vacuumed.NOT_ALLOWED;
            }
        }
        return found;
    }
}
