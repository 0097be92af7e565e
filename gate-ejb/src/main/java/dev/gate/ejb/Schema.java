package dev.gate.ejb;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.logging.Logger;

/**
 * Brings the schema up to date at deployment, before anything else touches the database. The changelog (module
 * gate-db, in the EAR's lib) is the schema's only owner; Liquibase's lock table serialises concurrent deployments and
 * a second deployment finds nothing to do.
 */
@Singleton
@Startup
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED) // Liquibase commits itself (else IJ031019)
public class Schema {

    static final String CHANGELOG = "dev/gate/db/changelog.xml";

    private static final Logger LOG = Logger.getLogger(Schema.class.getName());

    @Resource(lookup = GateDataSource.JNDI)
    DataSource dataSource;

    @PostConstruct
    void migrate() {
        try (Connection c = dataSource.getConnection()) {
            Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
            @SuppressWarnings("deprecation") // the CommandScope API needs a Scope per call; this one is enough here
            Liquibase liquibase = new Liquibase(CHANGELOG, new ClassLoaderResourceAccessor(Schema.class.getClassLoader()),
                    database);
            int pending = liquibase.listUnrunChangeSets(new Contexts(), new LabelExpression()).size();
            liquibase.update(new Contexts(), new LabelExpression());
            LOG.info(() -> pending == 0 ? "gate schema is up to date" : "gate schema updated: " + pending + " change sets applied");
        } catch (Exception e) {
            throw new IllegalStateException("gate could not bring its schema up to date: " + e.getMessage(), e);
        }
    }
}
