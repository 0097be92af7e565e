package dev.gate.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** timestamptz in and out of JDBC as {@link Instant}. */
final class Times {

    private Times() {
    }

    static Instant get(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** An element of a timestamptz array, as the driver hands it out. */
    static Instant of(Object element) {
        if (element instanceof java.sql.Timestamp t) {
            return t.toInstant();
        }
        return ((OffsetDateTime) element).toInstant();
    }

    static void set(PreparedStatement ps, int index, Instant instant) throws SQLException {
        ps.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
    }
}
