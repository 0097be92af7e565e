package dev.gate.engine;

import dev.gate.db.Migrations;
import dev.gate.store.ConnectionSettings;

import javax.sql.DataSource;
import java.sql.Connection;

/** Brings the gate's schema up to date on a connection of the data source (the server's deployment). */
public final class SchemaUpdate {

    private SchemaUpdate() {
    }

    /** The number of change sets applied (0: the schema was up to date). */
    public static int apply(DataSource dataSource) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            ConnectionSettings.lift(c); // a pooled connection may carry the gate's short timeouts (a redeployment)
            return Migrations.apply(c);
        }
    }
}
