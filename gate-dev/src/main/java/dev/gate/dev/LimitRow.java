package dev.gate.dev;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A limit's row in gate_limit, written as an operator with psql would write it: the one statement behind {@link
 * GateDatabase#limit}, the integration tests' in-server tables and a test that rolls its rows back. Plain JDBC on a
 * connection the caller owns, so it also runs inside WildFly. The table's trigger adds the limit's slot row.
 */
public final class LimitRow {

    // Column names go into the statement's text (values are bound): only plain lower-case names get there.
    private static final Pattern COLUMN = Pattern.compile("[a-z_]{1,40}");

    private LimitRow() {
    }

    /**
     * Inserts the limit {@code name}: {@code calls} a {@code window}, and {@code more} as column/value pairs of
     * further gate_limit columns ({@code "burst", 2, "keyed", true}); a column not given keeps the table's default.
     *
     * @throws IllegalArgumentException when {@code more} is not pairs, or a column is not named by {@code [a-z_]{1,40}}
     */
    public static void insert(Connection c, String name, int calls, Duration window, Object... more)
            throws SQLException {
        if (more.length % 2 != 0) {
            throw new IllegalArgumentException("column/value pairs expected, got " + more.length + " items");
        }
        StringBuilder columns = new StringBuilder("name, calls, window_ms");
        StringBuilder marks = new StringBuilder("?, ?, ?");
        List<Object> values = new ArrayList<>(List.of(name, calls, window.toMillis()));
        for (int i = 0; i < more.length; i += 2) {
            if (!(more[i] instanceof String column) || !COLUMN.matcher(column).matches()) {
                throw new IllegalArgumentException("not a gate_limit column name: " + more[i]);
            }
            columns.append(", ").append(column);
            marks.append(", ?");
            values.add(more[i + 1]);
        }
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO gate_limit (" + columns + ") VALUES (" + marks + ")")) {
            for (int i = 0; i < values.size(); i++) {
                ps.setObject(i + 1, values.get(i));
            }
            ps.execute();
        }
    }
}
