package dev.gate.db;

import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.resource.ClassLoaderResourceAccessor;

import java.sql.Connection;

/**
 * The one way the schema is brought up to date, by the server at deployment and by every test and benchmark: the
 * changelog of this module, applied by Liquibase on a connection the caller owns (and closes). Liquibase's lock
 * table serialises concurrent runs; a second run finds nothing to do.
 */
public final class Migrations {

    public static final String CHANGELOG = "dev/gate/db/changelog.xml";

    private Migrations() {
    }

    /** Change sets not yet applied to this database. */
    public static int pending(Connection c) throws LiquibaseException {
        return liquibase(c).listUnrunChangeSets(new Contexts(), new LabelExpression()).size();
    }

    /** Applies what is pending; answers how many change sets that was. */
    public static int apply(Connection c) throws LiquibaseException {
        Liquibase liquibase = liquibase(c);
        int pending = liquibase.listUnrunChangeSets(new Contexts(), new LabelExpression()).size();
        liquibase.update(new Contexts(), new LabelExpression());
        return pending;
    }

    // Not closed: closing a Liquibase closes its database, and the connection is the caller's.
    @SuppressWarnings("deprecation") // the CommandScope API needs a Scope per call; this one is enough here
    private static Liquibase liquibase(Connection c) throws LiquibaseException {
        Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
        return new Liquibase(CHANGELOG, new ClassLoaderResourceAccessor(Migrations.class.getClassLoader()), database);
    }
}
